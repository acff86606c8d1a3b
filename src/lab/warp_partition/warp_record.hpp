#pragma once
// The GPU side of the warp-partition lesson: every thread of `blocks` blocks of `block` records
// its indices, its lane, its warp's ticket and __activemask() (warp_model.hpp's LaneRecord).

#include "lab/warp_partition/warp_model.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace warpfold::lab {

// One launch of recordWarps; every record, in no particular order. Needs a CUDA device.
std::vector<LaneRecord> record_warps(BlockShape block, unsigned blocks, cudaStream_t stream);

}  // namespace warpfold::lab
