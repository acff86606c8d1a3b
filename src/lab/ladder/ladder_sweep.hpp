#pragma once
// `warpfold ladder --block-sweep`: every kernel at every block size, and the best block for each.

#include "lab/ladder/l2_flush.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/ladder/workspace.hpp"

namespace warpfold::lab {

// One row per kernel: the median ms at each block size, the best block among the correct runs, and
// the block sizes where the kernel's sum was WRONG. Every timed run follows a restore of the input
// and `flush_l2`. Sets `check_failed` if a fixed kernel was wrong anywhere.
report::Table block_sweep_table(const LadderWorkspace& ws, const L2Flush& flush_l2,
                                const std::vector<const LadderKernel*>& kernels,
                                const LadderOptions& options, cudaStream_t stream, bool& check_failed);

}  // namespace warpfold::lab
