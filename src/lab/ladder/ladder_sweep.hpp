#pragma once
// `warpfold ladder --block-sweep`: every kernel at every block size, and the best block for each.

#include "lab/ladder/ladder_run.hpp"
#include "lab/ladder/workspace.hpp"

namespace warpfold::lab {

// One row per kernel: the median ms at each block size, the best block among the correct runs, and
// the block sizes where the kernel's sum was WRONG. Sets `reference_failed` if a fixed kernel
// was wrong anywhere.
report::Table block_sweep_table(const LadderWorkspace& ws, const std::vector<const LadderKernel*>& kernels,
                                const LadderOptions& options, cudaStream_t stream, bool& reference_failed);

}  // namespace warpfold::lab
