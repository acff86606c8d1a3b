#pragma once
// Block-level reduction: warps reduce in registers, their leaders meet in shared memory, and the
// first warp reduces those. No identity element is needed: only threads [0, valid) hold values.

#include <warpfold/warp/warp_reduce.cuh>

namespace warpfold::block {

template <class T, int Threads>
struct reduce_storage {
  T warp_totals[Threads / 32];
};

namespace detail {
// The least power of two, at least 2, that covers the Threads / 32 warp totals: the shuffle
// width of the block reduction's second step.
template <int Threads>
inline constexpr int warp_totals_width = Threads <= 64    ? 2
                                         : Threads <= 128 ? 4
                                         : Threads <= 256 ? 8
                                         : Threads <= 512 ? 16
                                                          : 32;
// AllValid: every thread holds a value (valid == Threads), so the warps' step needs no lane tests.
template <int Threads, bool AllValid, class T, class Op>
__device__ __forceinline__ T reduce(T value, Op op, int valid, reduce_storage<T, Threads>& storage) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "block size must be a multiple of 32, at most 1024");
  const int warp_id = threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  const int warp_valid = AllValid ? 32 : min(max(valid - warp_id * 32, 0), 32);
  value = AllValid ? warp::reduce_down_all(value, op) : warp::reduce_down_partial(value, op, warp_valid);
  if (Threads == 32) return value;
  if (lane == 0 && warp_valid > 0) storage.warp_totals[warp_id] = value;
  __syncthreads();
  const int warps_valid = AllValid ? Threads / 32 : (valid + 31) / 32;
  if (warp_id == 0) {
    T v = lane < warps_valid ? storage.warp_totals[lane] : value;  // lanes past warps_valid are ignored
    value = warp::reduce_down_partial<warp_totals_width<Threads>>(v, op, warps_valid);
  }
  return value;
}
}  // namespace detail

// Returns the reduction of the values of threads [0, valid) in thread 0 (other threads: unspecified).
// 1 ≤ valid ≤ Threads; every thread of the block must call it. Contains __syncthreads().
template <int Threads, class T, class Op>
__device__ __forceinline__ T reduce(T value, Op op, int valid, reduce_storage<T, Threads>& storage) {
  return detail::reduce<Threads, false>(value, op, valid, storage);
}

// As reduce with valid = Threads, in fewer instructions; the result is bitwise the same.
template <int Threads, class T, class Op>
__device__ __forceinline__ T reduce_all(T value, Op op, reduce_storage<T, Threads>& storage) {
  return detail::reduce<Threads, true>(value, op, Threads, storage);
}

}  // namespace warpfold::block
