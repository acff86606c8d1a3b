#pragma once
// Warp-level reduction with register shuffles.
//
// The book's warp-synchronous step (`volatile int* vmem; vmem[tid] += vmem[tid + 16]; ...`) assumes
// the 32 threads of a warp run in lockstep. Since Volta, independent thread scheduling lets a
// warp's threads diverge and reconverge at any point, so that code is a data race. Shuffles with an
// explicit member mask exchange registers between lanes with the ordering made explicit.

#include <warpfold/ops.cuh>

#include <cuda/std/limits>

#include <cstring>
#include <type_traits>

namespace warpfold::warp {

inline constexpr unsigned kFullMask = 0xffffffffu;

// Moves any trivially copyable value through a 32-bit shuffle, word by word.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& value, Shuffle shuffle) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned words[kWords] = {};
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = shuffle(words[w]);
  T out;
  memcpy(&out, words, sizeof(T));
  return out;
}

// __shfl_down_sync for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& value, int offset) {
  return shuffle_words(value, [offset](unsigned word) { return __shfl_down_sync(kFullMask, word, offset); });
}

// __shfl_sync (every lane reads lane `src`) for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_idx(const T& value, int src) {
  return shuffle_words(value, [src](unsigned word) { return __shfl_sync(kFullMask, word, src); });
}

// __shfl_xor_sync (every lane reads lane `lane ^ mask`) for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& value, int mask) {
  return shuffle_words(value, [mask](unsigned word) { return __shfl_xor_sync(kFullMask, word, mask); });
}

// Reduces `value` over all 32 lanes of the calling warp; lane 0 receives the result.
// Every lane of the warp must call it (the mask names all 32).
template <class T, class Op>
__device__ __forceinline__ T reduce_down(T value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, shuffle_down(value, offset));
  return value;
}

// 32-bit integer sum, min, max and bitwise ops have a one-instruction warp reduction on sm_80
// and later (redux.sync), in place of five shuffle steps; integer results do not depend on the
// order, so they stay exact and reproducible. Lanes without a value take the op's identity.
template <class T, class Op>
inline constexpr bool has_redux =
    (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) &&
    (std::is_same_v<Op, plus> || std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum> ||
     std::is_same_v<Op, bit_and> || std::is_same_v<Op, bit_or> || std::is_same_v<Op, bit_xor>);

// Whether this architecture's code reduces T with Op by redux.sync (has_redux, from sm_80 on).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <class T, class Op>
inline constexpr bool uses_redux = has_redux<T, Op>;
#else
template <class T, class Op>
inline constexpr bool uses_redux = false;
#endif

template <class T, class Op>
__device__ __forceinline__ T redux_identity() {
  if constexpr (std::is_same_v<Op, minimum>) return cuda::std::numeric_limits<T>::max();
  else if constexpr (std::is_same_v<Op, maximum>) return cuda::std::numeric_limits<T>::lowest();
  else if constexpr (std::is_same_v<Op, bit_and>) return T(~0u);
  else return T(0);
}

template <class T, class Op>
__device__ __forceinline__ T redux(T value) {
  if constexpr (std::is_same_v<Op, plus>) return T(__reduce_add_sync(kFullMask, unsigned(value)));
  else if constexpr (std::is_same_v<Op, minimum>) return __reduce_min_sync(kFullMask, value);
  else if constexpr (std::is_same_v<Op, maximum>) return __reduce_max_sync(kFullMask, value);
  else if constexpr (std::is_same_v<Op, bit_and>) return T(__reduce_and_sync(kFullMask, unsigned(value)));
  else if constexpr (std::is_same_v<Op, bit_or>) return T(__reduce_or_sync(kFullMask, unsigned(value)));
  else return T(__reduce_xor_sync(kFullMask, unsigned(value)));
}

// As reduce_down, but only lanes [0, valid) hold values (valid ≥ 1): lane l folds in lane
// l + offset only when that lane is valid, so no identity element is needed. The fold order is
// fixed, which keeps floating-point results reproducible.
// Width (a power of two, 2 to 32) bounds valid: the steps start at offset Width / 2, since a
// larger one finds no valid lane to fold (l + offset ≥ valid for every lane), so the result is
// bitwise that of Width = 32 in fewer shuffles. A block's eight warp totals take three steps
// instead of five, on the critical path of every block and of the combine.
template <int Width = 32, class T, class Op>
__device__ __forceinline__ T reduce_down_partial(T value, Op op, int valid) {
  static_assert(Width >= 2 && Width <= 32 && (Width & (Width - 1)) == 0, "Width is a power of two, 2 to 32");
  const int lane = threadIdx.x & 31;
  if constexpr (uses_redux<T, Op>) {
    return redux<T, Op>(lane < valid ? value : redux_identity<T, Op>());
  } else {
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset >>= 1) {
      const T other = shuffle_down(value, offset);
      if (lane + offset < valid) value = op(value, other);
    }
    return value;
  }
}

// Reduces `value` over all 32 lanes of the calling warp; every lane receives the result. For an
// operator whose result does not depend on the order (integer min, max, bitwise ops): a butterfly
// of xor shuffles combines the lanes in a different order in each lane. One instruction
// (redux.sync) where has_redux.
template <class T, class Op>
__device__ __forceinline__ T reduce_all(T value, Op op) {
  if constexpr (uses_redux<T, Op>) {
    return redux<T, Op>(value);
  } else {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) value = op(value, shuffle_xor(value, mask));
    return value;
  }
}

// As reduce_down_partial with valid = 32, without its lane tests: lane 0 folds the same lanes in
// the same order, so its result is bitwise the same.
template <class T, class Op>
__device__ __forceinline__ T reduce_down_all(T value, Op op) {
  if constexpr (uses_redux<T, Op>) {
    return redux<T, Op>(value);
  } else {
    return reduce_down(value, op);
  }
}

}  // namespace warpfold::warp
