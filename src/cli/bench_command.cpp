#include "cli/bench_command.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace warpfold::cli {

void add_bench_options(CLI::App& sub, BenchCommandOptions& o) {
  sub.add_option("--pow2", o.pow2, "sizes 2^MIN … 2^MAX, as MIN:MAX or MIN:MAX:STEP")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            try {
              bench::BenchOptions probe;
              bench::parse_pow2_axis(s, probe);
              return {};
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
          },
          "MIN:MAX[:STEP]"))
      ->capture_default_str();
  sub.add_option("--types", o.types, "element types (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"int8", "half", "int32", "float", "double"}))
      ->capture_default_str();
  sub.add_option("--ops", o.ops, "operators (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"sum", "max"}))
      ->capture_default_str();
  add_reps_option(sub, o.bench.reps, "per measurement");
  sub.add_flag("--cold", o.bench.cold, "flush L2 (untimed) before every repetition");
  sub.add_flag("--no-cpu", o.no_cpu, "leave out the CPU rows");
  add_seed_option(sub, o.bench.seed, "seed of the random input (default: fresh each run)");
  add_segmented_bench_options(sub, o.segmented);
}

namespace {
// A name given twice would time its rows twice, as if it were another type or operator.
void refuse_repeats(const std::vector<std::string>& names, const std::string& option) {
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) throw std::invalid_argument(option + " names '" + names[i] + "' twice");
    }
  }
}
}  // namespace

bench::BenchOptions resolved_bench_options(const BenchCommandOptions& o) {
  refuse_repeats(o.types, "--types");
  refuse_repeats(o.ops, "--ops");
  bench::BenchOptions b = o.bench;
  bench::parse_pow2_axis(o.pow2, b);
  b.types.clear();
  for (const auto& t : o.types) {
    b.types.push_back(t == "int8"    ? bench::ElementType::int8
                      : t == "half"  ? bench::ElementType::float16
                      : t == "int32" ? bench::ElementType::int32
                      : t == "float" ? bench::ElementType::float32
                                     : bench::ElementType::float64);
  }
  b.ops.clear();
  for (const auto& op : o.ops) b.ops.push_back(op == "sum" ? bench::ReduceOp::sum : bench::ReduceOp::max);
  b.cpu = !o.no_cpu;
  return b;
}

BenchRequest resolved_bench_request(const BenchCommandOptions& o) {
  BenchRequest r{resolved_bench_options(o), std::nullopt};
  r.segmented = segmented_bench_request(o.segmented, r.full.reps, r.full.seed);
  return r;
}

harness::RunOutcome run_bench_request(const BenchRequest& r) {
  return r.segmented ? bench::run_segmented_bench(*r.segmented) : bench::run_bench(r.full);
}

}  // namespace warpfold::cli
