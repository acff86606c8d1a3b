#pragma once
// `warpfold bench`: its options (the lesson is declared in lessons.cpp).

#include "bench/bench_run.hpp"
#include "cli/command.hpp"

#include <string>
#include <vector>

namespace warpfold::cli {

struct BenchCommandOptions {
  bench::BenchOptions bench;
  std::string pow2 = "10:30";
  std::vector<std::string> types{"int8", "half", "int32", "float", "double"};
  std::vector<std::string> ops{"sum", "max"};
  bool no_cpu = false;
};

void add_bench_options(CLI::App& sub, BenchCommandOptions& opts);

// The benchmark's options as parsed: axis, types and operators applied; throws
// std::invalid_argument for a type or operator named twice.
bench::BenchOptions resolved_bench_options(const BenchCommandOptions& opts);

}  // namespace warpfold::cli
