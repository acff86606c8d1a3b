#pragma once
// `warpfold warps`: how a block's threads fall into warps. For each block shape, the rule's warps
// beside the ones measured on the GPU (each thread records its lane, its warp's ticket and
// __activemask()), and the lanes a partial last warp leaves idle.

#include "harness/run_outcome.hpp"
#include "lab/grid_shape/block_shape.hpp"

#include <vector>

namespace warpfold::lab {

struct WarpsOptions {
  std::vector<BlockShape> shapes = seed_eighty_thread_shapes();
  unsigned blocks = 2;  // more than one: the records show that a warp never spans two blocks
};

// Throws std::invalid_argument naming the problem: no shapes, a shape no device launches (more
// than 1024 threads, say), blocks outside 1..64.
void validate_warps_options(const WarpsOptions& options);

harness::RunOutcome run_warps(const WarpsOptions& options);

}  // namespace warpfold::lab
