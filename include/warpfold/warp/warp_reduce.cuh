#pragma once
// Warp-level reduction with register shuffles.
//
// The book's warp-synchronous step (`volatile int* vmem; vmem[tid] += vmem[tid + 16]; ...`) assumes
// the 32 threads of a warp run in lockstep. Since Volta, independent thread scheduling lets a
// warp's threads diverge and reconverge at any point, so that code is a data race. Shuffles with an
// explicit member mask exchange registers between lanes with the ordering made explicit.

namespace warpfold::warp {

inline constexpr unsigned kFullMask = 0xffffffffu;

// Reduces `value` over all 32 lanes of the calling warp; lane 0 receives the result.
// Every lane of the warp must call it (the mask names all 32).
template <class T, class Op>
__device__ __forceinline__ T reduce_down(T value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    value = op(value, __shfl_down_sync(kFullMask, value, offset));
  }
  return value;
}

}  // namespace warpfold::warp
