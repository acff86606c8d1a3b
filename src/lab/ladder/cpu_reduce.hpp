#pragma once
// The CPU references of the ladder.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace warpfold::lab {

// The seed's recursiveReduce (interleaved pairs, in place), with seed 000's fix for odd sizes: the
// book halves the size and silently drops the last element when it is odd; here the unpaired last
// element is folded into data[0] first. Generic over the element type and the operation, as the
// book suggests (any associative and commutative op).
template <class T, class Op>
T recursive_reduce(T* data, size_t size, Op op) {
  if (size == 0) throw std::invalid_argument("recursive_reduce: empty input");
  while (size > 1) {  // the book's tail recursion, written as a loop
    const size_t stride = size / 2;
    for (size_t i = 0; i < stride; ++i) data[i] = op(data[i], data[i + stride]);
    if (size % 2 == 1) data[0] = op(data[0], data[size - 1]);
    size = stride;
  }
  return data[0];
}

// int32 addition with defined wrap-around (the book sums in int; signed overflow is undefined).
struct wrapping_int32_plus {
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
};

// Serial sum in 64 bits: exact for any int32 input of fewer than 2^32 elements.
inline int64_t serial_sum(const int* data, size_t n) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += data[i];
  return sum;
}

// The ladder's reference sum, computed apart from serial_sum (which is a timed row checked against
// it): in 128 bits, from the last element to the first, so that a fault in either shows as a
// mismatch instead of agreeing with itself. Throws std::overflow_error if the sum leaves int64.
inline int64_t reference_sum(const int* data, size_t n) {
  __int128 sum = 0;
  for (size_t i = n; i-- > 0;) sum += data[i];
  if (sum > INT64_MAX || sum < INT64_MIN) throw std::overflow_error("reference_sum: the sum does not fit in int64");
  return static_cast<int64_t>(sum);
}

}  // namespace warpfold::lab
