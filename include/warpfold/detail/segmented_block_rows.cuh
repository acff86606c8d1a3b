#pragma once
// The block-rows kernel: rows the host knows alike (a fixed-size segmented_reduce, a reduce_axis
// over rows) that are block-class and one piece each, a block per row at a time.
//
// The segments kernel takes such rows too, at the 4 blocks per SM that its other paths' registers
// leave. A block-class row needs only a block's fold of 16-byte tiles, as reduce's narrow kernel
// does, so this kernel runs as many blocks per SM as that kernel's policy (docs/design.md, SG70).
// Each row is folded as the segments kernel folds a one-piece segment (fold_piece, then
// block_total), so the bits are the same.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/reduce_policy.hpp>
#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/thread_fold.cuh>

#include <cstdint>

namespace warpfold::detail {

// Whether rows of T folded into Acc take the block-rows kernel: elements of 4 bytes or more and
// accumulators of up to 8. Narrower elements put more of them in each vector and wider
// accumulators more registers behind each element: those spill there, and keep the segments kernel.
template <class T, class Acc>
inline constexpr bool takes_block_rows = sizeof(T) >= 4 && sizeof(Acc) <= 8;

// Block b folds rows b, b + grid, … of the segments kernel's parameters (row_pieces 1).
template <class Params>
__global__ void __launch_bounds__(kSegmentThreads, compiled_policy().narrow_min_blocks)
    block_rows_kernel(const Params p) {
  using Acc = typename Params::accumulator;
  __shared__ block::reduce_storage<Acc, kSegmentThreads> storage;
  if (blockIdx.x == 0 && threadIdx.x == 0) clear_stall_status(p.temp);  // the status is the last call's
  for (uint64_t s = blockIdx.x; s < p.segments; s += gridDim.x) {
    const auto seg = p.source.view_of(p.source.slot(s));
    thread_fold<Acc, typename Params::op_type, typename Params::form_type> f{Acc{}, false, p.op, p.form};
    fold_piece(seg, seg.items(), 0, 1, f);
    int valid = 0;
    const Acc total = block_total(f, p.op, storage, valid);  // its barrier also ends the last row's use
    if (threadIdx.x == 0) p.out[s] = p.form.finish(p.op, p.init, total, valid > 0);
  }
}

}  // namespace warpfold::detail
