#include "cli/segmented_bench_options.hpp"

#include "cli/command.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

namespace warpfold::cli {

void add_segmented_bench_options(CLI::App& bench, SegmentedBenchCli& o) {
  CLI::Option* segmented = bench.add_flag(
      "--segmented", o.segmented,
      "segmented reductions instead of the full reduce (CSR offsets and fixed sizes): warpfold vs "
      "cub::DeviceSegmentedReduce vs a roofline probe");
  CLI::Option* axis = bench.add_flag("--axis", o.axis, "x.sum(dim=1) and x.sum(dim=0) of matrices, as --segmented");
  o.elements_option =
      bench.add_option("--elements", o.elements, "floats per shape with --segmented or --axis: a power of two, 2^10 to 2^30")
          ->transform(count_transform())
          ->check(CLI::Validator(
              [](std::string& s) -> std::string {
                uint64_t n = 0;
                const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), n);
                const bool ok = error == std::errc() && end == s.data() + s.size() && n >= (1u << 10) &&
                                n <= (1u << 30) && (n & (n - 1)) == 0;
                return ok ? "" : "'" + s + "' is not a power of two from 2^10 to 2^30";
              },
              "2^K"))
          ->default_str("2^26");
  for (const char* full_only : {"--pow2", "--types", "--ops", "--cold", "--no-cpu"}) {
    CLI::Option* option = bench.get_option(full_only);
    segmented->excludes(option);
    axis->excludes(option);
  }
}

std::optional<bench::SegmentedBenchOptions> segmented_bench_request(const SegmentedBenchCli& o, int reps,
                                                                   std::optional<uint64_t> seed) {
  if (!o.segmented && !o.axis) {
    if (o.elements_option && o.elements_option->count()) {
      throw std::invalid_argument("--elements sizes the shapes of --segmented and --axis: give one of them");
    }
    return std::nullopt;
  }
  bench::SegmentedBenchOptions b;
  b.segmented = o.segmented;
  b.axis = o.axis;
  b.log2_elements = unsigned(63 - __builtin_clzll(o.elements));
  b.reps = reps;
  b.seed = seed;
  return b;
}

}  // namespace warpfold::cli
