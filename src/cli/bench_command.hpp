#pragma once
// `warpfold bench`: its options (the lesson is declared in lessons.cpp).

#include "bench/bench_run.hpp"
#include "cli/command.hpp"
#include "cli/segmented_bench_options.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpfold::cli {

struct BenchCommandOptions {
  bench::BenchOptions bench;
  std::string pow2 = "10:30";
  std::vector<std::string> types{"int8", "half", "int32", "float", "double"};
  std::vector<std::string> ops{"sum", "max"};
  bool no_cpu = false;
  SegmentedBenchCli segmented;  // --segmented, --axis: the segmented bench instead
};

void add_bench_options(CLI::App& sub, BenchCommandOptions& opts);

// The benchmark's options as parsed: axis, types and operators applied; throws
// std::invalid_argument for a type or operator named twice.
bench::BenchOptions resolved_bench_options(const BenchCommandOptions& opts);

// What `warpfold bench` runs: the full reduce's bench, or the segmented and axis bench where
// --segmented or --axis asks for it (with the full bench's reps and seed).
struct BenchRequest {
  bench::BenchOptions full;
  std::optional<bench::SegmentedBenchOptions> segmented;
};
BenchRequest resolved_bench_request(const BenchCommandOptions& opts);
harness::RunOutcome run_bench_request(const BenchRequest& request);

}  // namespace warpfold::cli
