#pragma once
// How a block's threads are split into warps: the rule (linear index = threadIdx.y * blockDim.x +
// threadIdx.x, warp = linear / 32, lane = linear % 32, the last warp partial), what a partial warp
// wastes, and the measured records each thread writes on the GPU grouped back into warps, to be
// compared with the rule. Pure logic, tested without a GPU.

#include "lab/grid_shape/block_shape.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::lab {

inline constexpr unsigned kWarpSize = 32;

// One warp of a block: the linear thread indices it holds (consecutive), and its active lanes.
struct WarpSlice {
  unsigned first = 0, last = 0;  // linear indices, inclusive
  uint32_t mask = 0;             // bit i: lane i holds a thread (what __activemask() returns)
  unsigned lanes() const;        // threads it holds
  bool operator==(const WarpSlice& o) const { return first == o.first && last == o.last && mask == o.mask; }
};

// A block's warps by the rule, in order.
std::vector<WarpSlice> model_warps(BlockShape block);

struct WarpBudget {
  unsigned warps = 0;       // ceil(threads / 32): warps never span blocks
  unsigned lanes = 0;       // warps × 32: the lanes the block occupies
  unsigned idle_lanes = 0;  // lanes of the partial last warp that hold no thread
  double lane_use_pct() const { return lanes ? 100.0 * (lanes - idle_lanes) / lanes : 0; }
};
WarpBudget warp_budget(BlockShape block);

// "0x0000ffff".
std::string mask_text(uint32_t mask);

// "(x,y)" of linear index `linear` in `block`.
std::string thread_label(BlockShape block, unsigned linear);

// What one thread records on the GPU.
struct LaneRecord {
  uint32_t block;   // blockIdx.x
  uint32_t x, y;    // threadIdx
  uint32_t lane;    // %laneid
  uint32_t ticket;  // a number its warp drew, shared by the warp's threads
  uint32_t mask;    // __activemask()
};

// The records of one block grouped by ticket into warps, ordered by their first thread. Throws
// std::runtime_error where the records contradict one warp per ticket: a thread missing or twice,
// a lane outside the mask, lanes not in the order of the threads, a group not consecutive.
std::vector<WarpSlice> measured_warps(const std::vector<LaneRecord>& records, uint32_t block_index, BlockShape block);

// "ok", or "WRONG: ..." naming the first warp where measured and model differ.
std::string compare_warps(const std::vector<WarpSlice>& model, const std::vector<WarpSlice>& measured, BlockShape block);

}  // namespace warpfold::lab
