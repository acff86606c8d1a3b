#pragma once
// The ladder past the book: block reductions as they are written today, under the same harness,
// size and checks as the book's kernels. Each keeps the last book rungs' shape (eight tiles per
// block, one partial sum per block summed by the host) and changes one thing: the fold happens in
// registers, not in place in global memory. Exact for every n ≥ 1 and every power-of-two block
// size 32..1024, like the fixed twins (ladder_fixed.cuh), whose conventions they share: 64-bit
// indices, sums in unsigned arithmetic (int32 wrap, defined).
//
// The warpfold::reduce rung, the library's device-wide reduce, is launched in registry.cu.

#include "lab/ladder/ladder_fixed.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <warpfold/ops.cuh>
#include <warpfold/warp/warp_reduce.cuh>

namespace warpfold::lab::fixed {

// The tiles each modern rung folds per block: the last book rungs' eight.
inline constexpr unsigned kModernUnroll = 8;

// The sum of this thread's elements of its block's eight tiles, in a register: eight independent
// loads in flight, each bounded by n, and nothing written back.
__device__ __forceinline__ unsigned thread_sum(const int* g_idata, index_t n) {
  const index_t first = index_t(blockIdx.x) * blockDim.x * kModernUnroll + threadIdx.x;
  unsigned sum = 0;
#pragma unroll
  for (unsigned k = 0; k < kModernUnroll; ++k) {
    const index_t j = first + index_t(k) * blockDim.x;
    if (j < n) sum += static_cast<unsigned>(g_idata[j]);
  }
  return sum;
}

// Folds each warp's values with `warp_sum`, then the warps' totals (one shared word each) in
// warp 0, and stores the block's sum. Every thread of the block calls it.
template <class WarpSum>
__device__ __forceinline__ void block_sum_to_output(unsigned value, WarpSum warp_sum, int* g_odata) {
  __shared__ unsigned warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_sum(value);
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  if (warp != 0) return;  // after the block's only barrier
  value = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0u);
  if (lane == 0) g_odata[blockIdx.x] = static_cast<int>(value);
}

// cg::reduce over a 32-thread tile: the warp's fold as one typed library call, which chooses the
// warp instruction for the type and operator (redux.sync for 32-bit integer sums on sm_80 and up,
// a shuffle tree elsewhere).
__global__ void reduceCooperativeGroups(int* g_idata, int* g_odata, index_t n) {
  namespace cg = cooperative_groups;
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  block_sum_to_output(
      thread_sum(g_idata, n), [&](unsigned v) { return cg::reduce(warp, v, cg::plus<unsigned>()); }, g_odata);
}

// The warp's fold as the hardware's one instruction, __reduce_add_sync (redux.sync, sm_80 and up,
// 32-bit integers only); code compiled for older architectures falls back to five shuffle steps.
__device__ __forceinline__ unsigned redux_warp_sum(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(warp::kFullMask, v);
#else
  return warp::reduce_down(v, warpfold::plus{});  // lane 0 holds the sum, the only lane read
#endif
}

__global__ void reduceReduxSync(int* g_idata, int* g_odata, index_t n) {
  block_sum_to_output(thread_sum(g_idata, n), [](unsigned v) { return redux_warp_sum(v); }, g_odata);
}

// CUB's BlockReduce: the whole block's fold, from registers to thread 0, written and tuned by the
// library for the block size given at compile time (one instance per block size, as
// reduceCompleteUnroll<iBlockSize>).
template <unsigned BlockSize>
__global__ void reduceCubBlockReduce(int* g_idata, int* g_odata, index_t n) {
  using BlockReduce = cub::BlockReduce<unsigned, BlockSize>;
  __shared__ typename BlockReduce::TempStorage storage;
  const unsigned sum = BlockReduce(storage).Sum(thread_sum(g_idata, n));
  if (threadIdx.x == 0) g_odata[blockIdx.x] = static_cast<int>(sum);
}

}  // namespace warpfold::lab::fixed
