#pragma once
// A thread's running fold of the elements it reads: each element is lifted into the accumulator
// by the reduce's Form (reduce_forms.cuh) and combined with the operator, in the order read.

#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/ops.cuh>

#include <cstdint>
#include <cstring>
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

// Plain reduces of 1- and 2-byte integers into an integer accumulator by an operator whose result
// does not depend on the order (sums modulo 2^bits, minima, maxima, bitwise operators): a whole
// vector of 8 or 16 elements is folded as a tree in 32-bit lanes, 8-bit sums four elements at a
// time by dp4a, minima and maxima (from sm_90) two 16-bit lanes at a time, and only its total
// joins the running fold: bitwise the same total as element by element, in a few dependent steps
// instead of one per element. Bitwise operators stay in lanes: the loaded vector arrives split
// into bytes, and three-input LOP3s fold those as fast as repacking them into words. The 32-bit
// lanes hold every value of T; for the operators other than a sum the accumulator must too, with
// T's signedness, so that converting the total equals folding the converted elements.
template <class Op>
inline constexpr bool is_bitwise =
    std::is_same_v<Op, bit_and> || std::is_same_v<Op, bit_or> || std::is_same_v<Op, bit_xor>;
template <class Op>
inline constexpr bool is_min_or_max = std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>;
template <class T, class Acc>
inline constexpr bool holds_every_value =
    std::is_signed_v<T> == std::is_signed_v<Acc> && sizeof(Acc) >= sizeof(T);
template <class T, class Acc, class Op, class Form>
inline constexpr bool folds_vectors_as_tree =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2 && std::is_integral_v<Acc> &&
    !std::is_same_v<Acc, bool> && std::is_same_v<Form, convert<identity>> &&
    (std::is_same_v<Op, plus> || (holds_every_value<T, Acc> && (is_min_or_max<Op> || is_bitwise<Op>)));

// x[0] op= x[Width], x[1] op= x[Width + 1], …, then the same on the first half, down to x[0].
template <unsigned Width, class Lane, unsigned N, class Op>
__device__ __forceinline__ void fold_halves(Lane (&x)[N], Op op) {
#pragma unroll
  for (unsigned j = 0; j < Width; ++j) x[j] = op(x[j], x[j + Width]);
  if constexpr (Width > 1) fold_halves<Width / 2>(x, op);
}

// The vector's 32-bit words folded into one with op, as a tree.
template <unsigned Words, class Op>
__device__ __forceinline__ unsigned fold_words(unsigned (&w)[Words], Op op) {
  fold_halves<Words / 2>(w, op);
  return w[0];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// 1-byte elements extended into the 16-bit lanes of a word (PRMT, sign or zero): bytes 0 and 2,
// or bytes 1 and 3.
template <class T, bool Odd>
__device__ __forceinline__ unsigned byte_pairs(unsigned w) {
  unsigned r;
  if constexpr (std::is_signed_v<T>) {
    if constexpr (Odd) asm("prmt.b32 %0, %1, 0, 0xB391;" : "=r"(r) : "r"(w));
    else asm("prmt.b32 %0, %1, 0, 0xA280;" : "=r"(r) : "r"(w));
  } else {
    if constexpr (Odd) asm("prmt.b32 %0, %1, 0, 0x4341;" : "=r"(r) : "r"(w));
    else asm("prmt.b32 %0, %1, 0, 0x4240;" : "=r"(r) : "r"(w));
  }
  return r;
}

// The minimum or maximum of two words' 16-bit lanes, lane by lane: one instruction from sm_90 on.
template <bool Signed, class Op>
struct min_max_16x2 {
  __device__ __forceinline__ unsigned operator()(unsigned a, unsigned b) const {
    if constexpr (std::is_same_v<Op, maximum>) return Signed ? __vmaxs2(a, b) : __vmaxu2(a, b);
    else return Signed ? __vmins2(a, b) : __vminu2(a, b);
  }
};

// A minimum or maximum over 16-bit lanes: 2-byte elements as they are, 1-byte ones extended in
// pairs, folded two lanes at a time, then the last word's two lanes.
template <class T, unsigned Words, class Op>
__device__ __forceinline__ T fold_words_min_max(const unsigned (&w)[Words], Op op) {
  constexpr bool kSigned = std::is_signed_v<T>;
  constexpr unsigned kLaneWords = sizeof(T) == 1 ? 2 * Words : Words;
  unsigned lanes[kLaneWords];
#pragma unroll
  for (unsigned k = 0; k < Words; ++k) {
    if constexpr (sizeof(T) == 1) {
      lanes[2 * k] = byte_pairs<T, false>(w[k]);
      lanes[2 * k + 1] = byte_pairs<T, true>(w[k]);
    } else {
      lanes[k] = w[k];
    }
  }
  const unsigned x = fold_words(lanes, min_max_16x2<kSigned, Op>{});
  using half_t = std::conditional_t<kSigned, int16_t, uint16_t>;
  return static_cast<T>(op(half_t(x & 0xffffu), half_t(x >> 16)));
}
#endif

// The total of one vector of such a reduce, in Acc.
template <class Acc, class Op, class T, unsigned N>
__device__ __forceinline__ Acc fold_vector_as_tree(const T (&v)[N], Op op) {
  using lane_t = std::conditional_t<std::is_signed_v<T>, int, unsigned>;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr unsigned kWords = N * sizeof(T) / 4;
  constexpr bool kWholeWords = N * sizeof(T) % 4 == 0 && (kWords & (kWords - 1)) == 0;
  if constexpr (kWholeWords && is_min_or_max<Op>) {
    unsigned w[kWords];
    memcpy(w, v, sizeof(w));
    return static_cast<Acc>(lane_t(fold_words_min_max<T>(w, op)));
  } else
#endif
  if constexpr (sizeof(T) == 1 && std::is_same_v<Op, plus>) {
    // Each 32-bit word's four bytes summed by one dp4a (a dot product with four ones); 16 bytes
    // sum to at most 16 · 255, exact in 32 bits, and Acc's modular conversion makes it the sum.
    lane_t words[N / 4];
    memcpy(words, v, sizeof(words));
    lane_t total = 0;
#pragma unroll
    for (unsigned w = 0; w < N / 4; ++w) total = __dp4a(words[w], lane_t(0x01010101), total);
    return static_cast<Acc>(total);
  } else {
    lane_t x[N];
#pragma unroll
    for (unsigned j = 0; j < N; ++j) x[j] = lane_t(v[j]);
    fold_halves<N / 2>(x, op);
    return static_cast<Acc>(x[0]);
  }
}

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
  // Element x, number i of the input, into a fold that holds a value already: no check.
  template <class T>
  __device__ __forceinline__ void add_next_element(const T& x, uint64_t i) {
    if constexpr (has_accumulate<Form, Acc, T>) {
      form.accumulate(acc, x, i);
    } else {
      acc = op(acc, form.template lift<Acc>(x, i));
    }
  }
  // Every element of item v (a vector or one element) of `items`, number i of its range.
  template <class Items>
  __device__ __forceinline__ void add_item(const Items& items, const typename Items::item& v, uint64_t i) {
    using T = typename Items::element;
    if constexpr (Items::kElements > 1 && folds_vectors_as_tree<T, Acc, Op, Form>) {
      add(fold_vector_as_tree<Acc>(v.v, op));
    } else {
      Items::for_each(v, items.element_index(i, 0), [&](const auto& x, uint64_t index) { add_element(x, index); });
    }
  }
};

}  // namespace warpfold::detail
