#pragma once
// The reduction ladder made exact for every n ≥ 1 and every power-of-two block size 32..1024.
//
// Each kernel keeps its book twin's idea (same pairing, same unroll factor, same in-place work on
// global memory, one partial sum per block summed by the host) and departs from it only where the
// book is wrong. The departures, each marked "Departure:" below:
//  1. No early `return`: every thread reaches every __syncthreads(); elements at or past n are
//     treated as the identity by bounding each pair with `valid`, the count of this block's
//     elements that lie inside n.
//  2. The host rounds the grid up (ceil(n / (block × unroll))), so no tail is dropped.
//  3. The last warp reduces in registers with shuffles instead of `volatile` shared stores
//     (a data race under independent thread scheduling, Volta and later).
//  4. Sums are carried in unsigned arithmetic: int32 overflow is undefined behaviour in C++,
//     unsigned wrap is defined and gives the same bits as the hardware's int add.
//  5. Indices are 64-bit, so n may exceed 2^31 without the index wrapping.

#include <warpfold/warp/warp_reduce.cuh>

#include <cstddef>

namespace warpfold::lab::fixed {

using index_t = unsigned long long;

struct wrapping_plus {
  __device__ __forceinline__ int operator()(int a, int b) const {
    return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  }
};

// Elements of the block's first tile (blockDim.x slots from `tile_start`) that lie inside n.
__device__ __forceinline__ unsigned valid_in_tile(index_t tile_start, index_t n) {
  return tile_start >= n ? 0u : static_cast<unsigned>(min(index_t(blockDim.x), n - tile_start));
}

// Sums the `Unroll` elements idx, idx + blockDim.x, ... that lie inside n and stores the sum in
// place at idx (the book's "unrolling" step, with a bound per element instead of all-or-nothing).
template <unsigned Unroll>
__device__ __forceinline__ void unroll_in_place(int* g_idata, index_t idx, index_t n) {
  if (idx >= n) return;  // Departure 1: nothing is stored past n (no barrier is skipped here).
  int sum = g_idata[idx];
#pragma unroll
  for (unsigned k = 1; k < Unroll; ++k) {
    const index_t j = idx + index_t(k) * blockDim.x;
    if (j < n) sum = wrapping_plus{}(sum, g_idata[j]);
  }
  g_idata[idx] = sum;
}

// Interleaved pairs over the tile while stride > stop; pairs reaching past `valid` are skipped.
__device__ __forceinline__ void interleaved_in_place(int* idata, unsigned tid, unsigned valid,
                                                     unsigned stop) {
  for (unsigned stride = blockDim.x / 2; stride > stop; stride >>= 1) {
    if (tid < stride && tid + stride < valid) idata[tid] = wrapping_plus{}(idata[tid], idata[tid + stride]);
    __syncthreads();
  }
}

// The last 64 → 1 steps in warp 0's registers (Departure 3). Call after a barrier, with the tile
// already folded to its first min(64, blockDim.x) slots.
__device__ __forceinline__ void last_warp_to_output(const int* idata, unsigned tid, unsigned valid,
                                                    int* g_odata) {
  if (tid >= 32) return;
  int v = tid < valid ? idata[tid] : 0;
  if (tid + 32 < valid) v = wrapping_plus{}(v, idata[tid + 32]);  // valid ≤ blockDim.x
  v = warp::reduce_down(v, wrapping_plus{});
  if (tid == 0) g_odata[blockIdx.x] = v;
}

// Complete unrolling of the tile fold down to 64 slots. `block_size` is blockDim.x (tested at run
// time, as reduceCompleteUnrollWarps8 does) or a template constant (folded away at compile time,
// as reduceCompleteUnroll<iBlockSize> does).
__device__ __forceinline__ void complete_fold_to_64(int* idata, unsigned tid, unsigned valid,
                                                    unsigned block_size) {
  wrapping_plus add;
  if (block_size >= 1024 && tid < 512 && tid + 512 < valid) idata[tid] = add(idata[tid], idata[tid + 512]);
  __syncthreads();
  if (block_size >= 512 && tid < 256 && tid + 256 < valid) idata[tid] = add(idata[tid], idata[tid + 256]);
  __syncthreads();
  if (block_size >= 256 && tid < 128 && tid + 128 < valid) idata[tid] = add(idata[tid], idata[tid + 128]);
  __syncthreads();
  if (block_size >= 128 && tid < 64 && tid + 64 < valid) idata[tid] = add(idata[tid], idata[tid + 64]);
  __syncthreads();
}

__device__ __forceinline__ void neighbored_pairs(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x;
  int* idata = g_idata + start;
  const unsigned valid = valid_in_tile(start, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    // Departure 1: the partner must lie inside n (the book reads past n in the last block).
    if ((tid % (2 * stride)) == 0 && tid + stride < valid) {
      idata[tid] = wrapping_plus{}(idata[tid], idata[tid + stride]);
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void warmup(int* g_idata, int* g_odata, index_t n) { neighbored_pairs(g_idata, g_odata, n); }

__global__ void reduceNeighbored(int* g_idata, int* g_odata, index_t n) {
  neighbored_pairs(g_idata, g_odata, n);
}

__global__ void reduceNeighboredLess(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x;
  int* idata = g_idata + start;
  const unsigned valid = valid_in_tile(start, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    // Departure 1: `index + stride < valid` implies the book's `index < blockDim.x`.
    if (index + stride < valid) idata[index] = wrapping_plus{}(idata[index], idata[index + stride]);
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceInterleaved(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x;
  int* idata = g_idata + start;
  interleaved_in_place(idata, tid, valid_in_tile(start, n), 0);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// reduceUnrolling2/4/8: each block first folds Unroll tiles into its first tile.
template <unsigned Unroll>
__global__ void reduceUnrolling(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x * Unroll;
  unroll_in_place<Unroll>(g_idata, start + tid, n);
  __syncthreads();
  int* idata = g_idata + start;
  interleaved_in_place(idata, tid, valid_in_tile(start, n), 0);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// reduceUnrollWarps8 (Unroll = 8) and reduceUnrollWarps (Unroll = 2): the loop stops at 64
// slots and the last warp finishes with shuffles.
template <unsigned Unroll>
__global__ void reduceUnrollWarps(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x * Unroll;
  unroll_in_place<Unroll>(g_idata, start + tid, n);
  __syncthreads();
  int* idata = g_idata + start;
  const unsigned valid = valid_in_tile(start, n);
  interleaved_in_place(idata, tid, valid, 32);
  last_warp_to_output(idata, tid, valid, g_odata);
}

__global__ void reduceCompleteUnrollWarps8(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * blockDim.x * 8;
  unroll_in_place<8>(g_idata, start + tid, n);
  __syncthreads();
  int* idata = g_idata + start;
  const unsigned valid = valid_in_tile(start, n);
  complete_fold_to_64(idata, tid, valid, blockDim.x);
  last_warp_to_output(idata, tid, valid, g_odata);
}

template <unsigned BlockSize>
__global__ void reduceCompleteUnroll(int* g_idata, int* g_odata, index_t n) {
  const unsigned tid = threadIdx.x;
  const index_t start = index_t(blockIdx.x) * BlockSize * 8;
  unroll_in_place<8>(g_idata, start + tid, n);
  __syncthreads();
  int* idata = g_idata + start;
  const unsigned valid = valid_in_tile(start, n);
  complete_fold_to_64(idata, tid, valid, BlockSize);
  last_warp_to_output(idata, tid, valid, g_odata);
}

}  // namespace warpfold::lab::fixed
