#pragma once
// Warp-level reduction with register shuffles.
//
// The book's warp-synchronous step (`volatile int* vmem; vmem[tid] += vmem[tid + 16]; ...`) assumes
// the 32 threads of a warp run in lockstep. Since Volta, independent thread scheduling lets a
// warp's threads diverge and reconverge at any point, so that code is a data race. Shuffles with an
// explicit member mask exchange registers between lanes with the ordering made explicit.

#include <cstring>

namespace warpfold::warp {

inline constexpr unsigned kFullMask = 0xffffffffu;

// __shfl_down_sync for any trivially copyable type, moved as 32-bit words.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& value, int offset) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned words[kWords] = {};
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_down_sync(kFullMask, words[w], offset);
  T out;
  memcpy(&out, words, sizeof(T));
  return out;
}

// Reduces `value` over all 32 lanes of the calling warp; lane 0 receives the result.
// Every lane of the warp must call it (the mask names all 32).
template <class T, class Op>
__device__ __forceinline__ T reduce_down(T value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, shuffle_down(value, offset));
  return value;
}

// As reduce_down, but only lanes [0, valid) hold values (valid ≥ 1): lane l folds in lane
// l + offset only when that lane is valid, so no identity element is needed. The fold order is
// fixed, which keeps floating-point results reproducible.
template <class T, class Op>
__device__ __forceinline__ T reduce_down_partial(T value, Op op, int valid) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T other = shuffle_down(value, offset);
    if (lane + offset < valid) value = op(value, other);
  }
  return value;
}

}  // namespace warpfold::warp
