#pragma once
#include "bench/bench_run.hpp"
#include "cli/command.hpp"

namespace warpfold::cli {

struct BenchCommandOptions {
  bench::BenchOptions bench;
  std::string pow2 = "10:30";
  std::vector<std::string> types{"int32", "float", "double"};
  std::vector<std::string> ops{"sum", "max"};
  bool no_cpu = false;
  OutputOptions output;
};

// Registers `warpfold bench` on `app`.
Command add_bench_command(CLI::App& app, BenchCommandOptions& opts);

}  // namespace warpfold::cli
