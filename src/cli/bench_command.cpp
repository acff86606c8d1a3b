#include "cli/bench_command.hpp"

#include "cli/seed_check.hpp"

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpfold::cli {

Command add_bench_command(CLI::App& app, BenchCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "bench", "warpfold::reduce vs cub::DeviceReduce vs thrust::reduce vs the CPU, same process, same buffers");
  sub->add_option("--pow2", o.pow2, "sizes 2^MIN … 2^MAX, as MIN:MAX or MIN:MAX:STEP")
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
  sub->add_option("--types", o.types, "element types (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"int8", "half", "int32", "float", "double"}))
      ->capture_default_str();
  sub->add_option("--ops", o.ops, "operators (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"sum", "max"}))
      ->capture_default_str();
  sub->add_option("--reps", o.bench.reps, "timed repetitions per measurement")->check(CLI::Range(1, 100000))->capture_default_str();
  sub->add_flag("--cold", o.bench.cold, "flush L2 (untimed) before every repetition");
  sub->add_flag("--no-cpu", o.no_cpu, "leave out the CPU rows");
  o.seed_option = sub->add_option("--seed", o.seed, "seed of the random input (default: fresh each run)")->check(seed_check());
  add_segmented_bench_options(*sub, o.segmented);
  add_output_options(*sub, o.output);

  return {sub, [&o]() {
            o.bench = resolved_bench_options(o);
            const auto segmented = segmented_bench_request(o.segmented, o.bench.reps, o.bench.seed);
            const bench::BenchOutcome outcome =
                segmented ? bench::run_segmented_bench(*segmented) : bench::run_bench(o.bench);
            emit(outcome.report, o.output);
            if (!outcome.gpu_ran) {
              std::cerr << "warpfold: " << outcome.report.meta.value("no_device_reason", std::string("no CUDA device"))
                        << ": the benchmark needs a GPU\n";
              return int(kExitNoDevice);
            }
            if (outcome.check_failed) {
              std::cerr << "warpfold: a checked row gave a WRONG result (its check column says which)\n";
              return int(kExitCheckFailed);
            }
            return int(kExitOk);
          }};
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
  if (o.seed_option && o.seed_option->count()) b.seed = o.seed;  // 0 included: any given seed is used as given
  return b;
}

}  // namespace warpfold::cli
