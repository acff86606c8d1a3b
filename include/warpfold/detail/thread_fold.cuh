#pragma once
// A thread's running fold of the elements it reads: each element is lifted into the accumulator
// by the reduce's Form (reduce_forms.cuh) and combined with the operator, in the order read.

#include <cstdint>
#include <type_traits>
#include <utility>

namespace warpfold::detail {

// Forms that deposit an element into a running accumulator themselves (form.accumulate(acc, x,
// i)), where lifting it and applying the operator would cost more.
template <class Form, class Acc, class T, class = void>
inline constexpr bool has_accumulate = false;
template <class Form, class Acc, class T>
inline constexpr bool has_accumulate<
    Form, Acc, T,
    std::void_t<decltype(std::declval<const Form&>().accumulate(std::declval<Acc&>(), std::declval<const T&>(),
                                                                 uint64_t{}))>> = true;

// The form of a fold of accumulators only (add, never add_element).
struct no_form {};

// A running fold that starts empty: no identity element is required of the operator.
template <class Acc, class Op, class Form>
struct thread_fold {
  Acc acc;
  bool has = false;
  Op op;
  Form form;

  __device__ __forceinline__ void add(const Acc& x) {
    acc = has ? op(acc, x) : x;
    has = true;
  }
  // Element x, number i of the input.
  template <class T>
  __device__ __forceinline__ void add_element(const T& x, uint64_t i) {
    if constexpr (has_accumulate<Form, Acc, T>) {
      if (has) {
        form.accumulate(acc, x, i);
      } else {
        acc = form.template lift<Acc>(x, i);
        has = true;
      }
    } else {
      add(form.template lift<Acc>(x, i));
    }
  }
  // Every element of item v (a vector or one element) of `items`, number i of its range.
  template <class Items>
  __device__ __forceinline__ void add_item(const Items& items, const typename Items::item& v, uint64_t i) {
    Items::for_each(v, items.element_index(i, 0), [&](const auto& x, uint64_t index) { add_element(x, index); });
  }
};

}  // namespace warpfold::detail
