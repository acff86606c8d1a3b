#pragma once
// The forms of a reduce: what happens to each element as it is loaded (lift) and to the total of
// all elements at the end (finish). The kernel takes one form type where it could take a lift and
// a finish type: each type spelled in the kernel's template arguments lengthens its mangled name,
// which cudaLaunchKernel, the fallback launch, pays for at every launch.

#include <warpfold/ops.cuh>

#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

// Whether Transform is one of the built-ins that compute in the accumulator type (ops.cuh).
template <class Transform, class = void>
inline constexpr bool computes_in_accumulator = false;
template <class Transform>
inline constexpr bool computes_in_accumulator<Transform, std::void_t<typename Transform::computes_in_accumulator>> =
    true;

// What Transform receives: the element itself, or for the built-ins, the element converted to Acc.
template <class Acc, class Transform, class T>
__host__ __device__ __forceinline__ constexpr auto transform_argument(const T& x)
    -> std::conditional_t<computes_in_accumulator<Transform>, Acc, const T&> {
  if constexpr (computes_in_accumulator<Transform>) {
    return static_cast<Acc>(x);
  } else {
    return x;
  }
}

// reduce and transform_reduce: Acc(transform(element)); the output is op(init, total), or init
// for n = 0.
template <class Transform>
struct convert {
  Transform transform;
  template <class Acc, class T>
  __device__ __forceinline__ Acc lift(const T& x, uint64_t) const {
    return static_cast<Acc>(transform(transform_argument<Acc, Transform>(x)));
  }
  template <class Op, class Acc>
  __device__ __forceinline__ Acc finish(const Op& op, const Acc& init, const Acc& total, bool has_total) const {
    return has_total ? op(init, total) : init;
  }
};

// argmin and argmax: (element, index); the output is the total, or init ({T{}, 0}) for n = 0.
struct with_index {
  template <class Acc, class T>
  __device__ __forceinline__ Acc lift(const T& x, uint64_t i) const {
    return Acc{x, i};
  }
  template <class Op, class Acc>
  __device__ __forceinline__ Acc finish(const Op&, const Acc& empty, const Acc& total, bool has_total) const {
    return has_total ? total : empty;
  }
};

// compensated_sum: (element, no error yet); the output is the compensated total's value, init's
// sum for n = 0.
struct compensate {
  template <class Acc, class T>
  __device__ __forceinline__ Acc lift(const T& x, uint64_t) const {
    using value_t = decltype(Acc{}.sum);
    return Acc{static_cast<value_t>(x), value_t(0)};
  }
  template <class Op, class Acc>
  __device__ __forceinline__ auto finish(const Op& op, const Acc& init, const Acc& total, bool has_total) const {
    return has_total ? op(init, total).value() : init.sum;
  }
};

}  // namespace warpfold::detail
