#pragma once
// `warpfold ladder`: every kernel of the reduction ladder, checked and timed on one input.

#include "harness/int_sum_check.hpp"
#include "harness/run_outcome.hpp"
#include "lab/ladder/registry.hpp"
#include "report/table.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace warpfold::lab {

struct LadderOptions {
  uint64_t n = uint64_t(1) << 24;  // the book's size
  unsigned block = 512;            // the book's default block
  int reps = 20;
  int warmup = 2;
  VariantSelection variants = VariantSelection::all;
  bool block_sweep = false;
  std::vector<unsigned> sweep_blocks{64, 128, 256, 512, 1024};
  std::optional<uint64_t> seed;    // fresh when not given
};

// The largest n the ladder accepts: the book's kernels take `unsigned int n`.
inline constexpr uint64_t kLadderMaxN = 0xffffffffull;

// check_failed: a fixed kernel or a CPU reference got a wrong sum (a book kernel's WRONG row is
// the lesson, not a failure). Throws std::invalid_argument for options the ladder cannot run (n = 0, n too large for the
// host's or the device's memory, a block size outside 32..1024 or not a power of two, reps < 1),
// and std::runtime_error naming the size if host memory runs out all the same.
harness::RunOutcome run_ladder(const LadderOptions& options);

// Host bytes the ladder holds at once for n elements (checked before it allocates).
uint64_t ladder_host_bytes(uint64_t n);

// The CPU rows of the ladder's table (recursiveReduce, serial sum), timed over `reps` and checked
// against `ref`; `failed` if either sum differs from it.
struct LadderCpuRows {
  std::vector<std::vector<nlohmann::json>> rows;
  bool failed = false;
};
LadderCpuRows ladder_cpu_rows(const std::vector<int>& data, const harness::IntReference& ref, int reps);

// Checks the options that need no device; throws std::invalid_argument with the reason.
void validate_ladder_options(const LadderOptions& options);

}  // namespace warpfold::lab
