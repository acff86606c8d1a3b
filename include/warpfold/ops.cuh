#pragma once
// Reduction operators. Any associative and commutative binary functor `Acc op(Acc, Acc)` callable
// on the device works with warpfold::reduce (its fold order interleaves the elements); these are
// the common ones, with their floating-point behaviour fixed and documented.
//
// NaN and infinities:
//  - plus, multiplies: IEEE arithmetic (a NaN anywhere gives NaN; +inf + -inf gives NaN).
//  - minimum, maximum: a NaN anywhere gives NaN (NaN is "more extreme" than every number), so
//    the result does not depend on where the NaN sits.
//  - arg_min, arg_max: the same ordering; among equal values (or several NaNs) the first index
//    wins.
//  - +0 and -0 compare equal, so where both occur, minimum and maximum may return either: on
//    the device float, half and bfloat16 minimum / maximum order -0 below +0 (min.NaN /
//    max.NaN), other types keep whichever comes first in the fold order (fixed for a device, n
//    and alignment, so still the same run to run). Which NaN payload comes back is likewise
//    unspecified.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace warpfold {

namespace detail {
template <class T>
__host__ __device__ __forceinline__ bool is_nan(const T& x) {
  return !(x == x);  // false for integers; true only for NaN
}
// a orders strictly before b with NaN first: "a is more extreme downward than b". Written so
// that it compiles to one unordered compare and a self-compare: a < b, or a NaN, unless b is NaN.
template <class T>
__host__ __device__ __forceinline__ bool less_nan_first(const T& a, const T& b) {
  return !(b <= a) && !is_nan(b);
}
// a orders strictly before b with NaN first, upward: a > b, or a NaN, unless b is NaN.
template <class T>
__host__ __device__ __forceinline__ bool greater_nan_first(const T& a, const T& b) {
  return !(b >= a) && !is_nan(b);
}

// On the device, float, half and bfloat16 min and max are one instruction each (min.NaN /
// max.NaN, sm_80 and later): a NaN operand gives the canonical NaN, as the operators above
// promise (which NaN is not promised). The compare-and-select form costs several dependent
// instructions per element. (Doubles keep it: sm_90 has no fp64 min/max instruction, and
// min.f64 / max.f64 compile to longer code than it.)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define WARPFOLD_DEVICE_NAN_MIN_MAX 1
__device__ __forceinline__ float min_nan(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float max_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#endif
}  // namespace detail

struct plus {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};

struct multiplies {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a * b; }
};

struct minimum {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const {
#ifdef WARPFOLD_DEVICE_NAN_MIN_MAX
    if constexpr (std::is_same_v<T, float>) return detail::min_nan(a, b);
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return __hmin_nan(a, b);
#endif
    return detail::less_nan_first(b, a) ? b : a;  // b when it orders before a (NaN first)
  }
};

struct maximum {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const {
#ifdef WARPFOLD_DEVICE_NAN_MIN_MAX
    if constexpr (std::is_same_v<T, float>) return detail::max_nan(a, b);
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return __hmax_nan(a, b);
#endif
    return detail::greater_nan_first(b, a) ? b : a;  // as minimum, mirrored
  }
};

struct bit_and {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a & b; }
};

struct bit_or {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a | b; }
};

struct bit_xor {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

// A value and the index it came from: the result type of arg_min / arg_max.
template <class T>
struct key_value {
  T value;
  uint64_t index;
};

struct arg_min {
  template <class T>
  __host__ __device__ __forceinline__ key_value<T> operator()(const key_value<T>& a, const key_value<T>& b) const {
    if (detail::less_nan_first(b.value, a.value)) return b;
    if (detail::less_nan_first(a.value, b.value)) return a;
    return b.index < a.index ? b : a;
  }
};

struct arg_max {
  template <class T>
  __host__ __device__ __forceinline__ key_value<T> operator()(const key_value<T>& a, const key_value<T>& b) const {
    if (detail::greater_nan_first(b.value, a.value)) return b;
    if (detail::greater_nan_first(a.value, b.value)) return a;
    return b.index < a.index ? b : a;
  }
};

// Compensated (Neumaier) summation: `sum` carries the running total, `error` the low-order bits
// that rounding dropped. The final value is sum + error. Combining two partial results with
// TwoSum keeps the error bound independent of n to first order.
template <class T>
struct compensated {
  T sum;
  T error;
  __host__ __device__ T value() const { return sum + error; }
};

struct compensated_plus {
  template <class T>
  __host__ __device__ __forceinline__ compensated<T> operator()(const compensated<T>& a, const compensated<T>& b) const {
    const T s = a.sum + b.sum;
    // An infinite or NaN total carries no rounding error; TwoSum would turn inf into NaN.
    if (!((s - s) == T(0))) return {s, T(0)};
    // TwoSum: the exact rounding error of a.sum + b.sum, whichever is larger in magnitude.
    const T bp = s - a.sum;
    const T e = (a.sum - (s - bp)) + (b.sum - bp);
    return {s, e + a.error + b.error};
  }
};

// Transforms fused into the load of a transform-reduce. A transform of the caller's receives the
// input element (as in CUB). square and absolute carry the marker computes_in_accumulator:
// transform_reduce converts the element to the accumulator type first and applies them there,
// so squares of int32 data summed into int64 cannot overflow, and squares of floats summed
// into double are exact. (identity needs no marker: the element is converted either way.)
struct identity {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& x) const { return x; }
};

struct square {
  using computes_in_accumulator = void;
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& x) const { return x * x; }
};

// |x|, with |-0| = +0 and NaN kept; for a signed integer, its minimum has no magnitude in its
// own type (as for std::abs), which a wider accumulator avoids.
struct absolute {
  using computes_in_accumulator = void;
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& x) const { return x > T(0) ? x : T(T(0) - x); }
};

}  // namespace warpfold
