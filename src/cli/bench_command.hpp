#pragma once
#include "bench/bench_run.hpp"
#include "cli/command.hpp"
#include "cli/segmented_bench_options.hpp"

namespace warpfold::cli {

struct BenchCommandOptions {
  bench::BenchOptions bench;
  std::string pow2 = "10:30";
  std::vector<std::string> types{"int8", "half", "int32", "float", "double"};
  std::vector<std::string> ops{"sum", "max"};
  bool no_cpu = false;
  uint64_t seed = 0;
  SegmentedBenchCli segmented;  // --segmented, --axis: the segmented bench instead
  OutputOptions output;
  const CLI::Option* seed_option = nullptr;  // set on registration: whether --seed was given
};

// Registers `warpfold bench` on `app`.
Command add_bench_command(CLI::App& app, BenchCommandOptions& opts);

// The benchmark's options as parsed: axis, types, operators and seed applied.
bench::BenchOptions resolved_bench_options(const BenchCommandOptions& opts);

}  // namespace warpfold::cli
