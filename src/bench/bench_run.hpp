#pragma once
// `warpfold bench`: warpfold::reduce against cub::DeviceReduce, thrust::reduce and the CPU, in one
// process, on the same buffers, over a power-of-two axis of sizes.

#include "bench/reduce_runners.hpp"
#include "report/table.hpp"

#include <vector>

namespace warpfold::bench {

struct BenchOptions {
  unsigned log2_min = 10, log2_max = 30, log2_step = 1;  // n = 2^log2_min … 2^log2_max
  std::vector<ElementType> types{ElementType::int32, ElementType::float32, ElementType::float64};
  std::vector<ReduceOp> ops{ReduceOp::sum, ReduceOp::max};
  int reps = 50;
  int warmup = 5;
  bool cold = false;      // flush L2 (untimed) before every repetition
  bool cpu = true;        // time the CPU reference too
  uint64_t seed = 0;      // 0: fresh
};

struct BenchOutcome {
  report::Report report;
  bool gpu_ran = false;
  bool check_failed = false;  // warpfold's result outside its bound at some size
};

// Throws std::invalid_argument for an empty or reversed axis, log2 > 34, reps < 1, or sizes that
// do not fit in device memory.
BenchOutcome run_bench(const BenchOptions& options);

// "10:30" or "10:30:2" → (min, max, step); throws std::invalid_argument.
void parse_pow2_axis(const std::string& text, BenchOptions& options);

}  // namespace warpfold::bench
