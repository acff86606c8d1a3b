#pragma once
// `warpfold bench`: warpfold::reduce against cub::DeviceReduce, thrust::reduce and the CPU, in one
// process, on the same buffers, over a power-of-two axis of sizes.

#include "bench/reduce_runners.hpp"
#include "harness/run_outcome.hpp"
#include "report/table.hpp"

#include <optional>
#include <vector>

namespace warpfold::bench {

struct BenchOptions {
  unsigned log2_min = 10, log2_max = 30, log2_step = 1;  // n = 2^log2_min … 2^log2_max
  std::vector<ElementType> types{ElementType::int8, ElementType::float16, ElementType::int32, ElementType::float32,
                                 ElementType::float64};
  std::vector<ReduceOp> ops{ReduceOp::sum, ReduceOp::max};
  int reps = 50;
  int warmup = 5;
  bool cold = false;      // flush L2 (untimed) before every repetition
  bool cpu = true;        // time the CPU reference too
  std::optional<uint64_t> seed;  // fresh when not given
};

// check_failed: warpfold's result outside its bound, or a wrong no-combine XOR, at some size.
// Throws std::invalid_argument for a bad axis (see axis_is_valid), reps < 1, or sizes that do not
// fit in device or host memory.
harness::RunOutcome run_bench(const BenchOptions& options);

// "10:30" or "10:30:2" → (min, max, step): unsigned decimal fields only, nothing else in the text,
// and an axis that axis_is_valid accepts; throws std::invalid_argument naming the text otherwise.
void parse_pow2_axis(const std::string& text, BenchOptions& options);

// 0 ≤ log2_min ≤ log2_max ≤ 34 and 1 ≤ log2_step ≤ 34.
bool axis_is_valid(const BenchOptions& options);

// The exponents the bench runs: log2_min, log2_min + step, … up to log2_max. Throws
// std::invalid_argument for an axis that is not valid.
std::vector<unsigned> axis_exponents(const BenchOptions& options);

}  // namespace warpfold::bench
