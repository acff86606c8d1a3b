#pragma once
// How a device-wide reduce splits its input: pure host arithmetic, unit-tested on the CPU.
//
// The input [p, p + n) is cut into a scalar head (elements before the first 16-byte boundary),
// a body of 16-byte vectors, and a scalar tail (the elements after the last whole vector).
// Block 0 reads the head and the tail; every block reads body vectors in a grid-stride loop.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace warpfold::detail {

// Tuning as data, apart from the algorithm. 256 threads per block; the grid fills the device
// once (SMs × resident blocks, from the occupancy calculator); 4 vectors of 16 bytes in flight
// per thread cover DRAM latency (Little's law: ~4.8 TB/s × ~0.7 µs ≈ 3.4 MB in flight needed,
// 132 SMs × 2048 threads × 64 B = 17 MB offered).
struct reduce_policy {
  static constexpr unsigned threads = 256;
  static constexpr unsigned vectors_in_flight = 4;
  static constexpr unsigned vector_bytes = 16;
};

// Elements of T per 16-byte vector; 1 when T does not tile 16 bytes (no vector path).
// (A variable template, not a function, so that host and device code can both use it.)
template <class T>
inline constexpr unsigned vector_elements =
    (sizeof(T) <= reduce_policy::vector_bytes && reduce_policy::vector_bytes % sizeof(T) == 0)
        ? unsigned(reduce_policy::vector_bytes / sizeof(T))
        : 1u;

struct reduce_plan {
  uint64_t head = 0;    // scalar elements before the first aligned vector
  uint64_t vectors = 0; // whole vectors in the body
  uint64_t tail = 0;    // scalar elements after the body
  unsigned grid = 1;    // blocks to launch (≥ 1, even for n = 0: block 0 writes init)
};

// `address` is the byte address of element 0 (a multiple of elem_bytes), `elem_bytes` = sizeof(T),
// `vec_elems` is vector_elements<T>, `max_blocks` = SMs × resident blocks per SM.
inline reduce_plan plan_reduce(uint64_t n, uintptr_t address, size_t elem_bytes, unsigned vec_elems,
                               unsigned threads, unsigned max_blocks) {
  reduce_plan p;
  if (vec_elems > 1) {
    const size_t vec_bytes = elem_bytes * vec_elems;
    const uint64_t misalign = address % vec_bytes;
    p.head = std::min<uint64_t>(n, misalign ? (vec_bytes - misalign) / elem_bytes : 0);
    p.vectors = (n - p.head) / vec_elems;
    p.tail = n - p.head - p.vectors * vec_elems;
  } else {
    p.vectors = n;  // "vectors" of one element
  }
  // Enough blocks that every thread has a full batch of vectors in flight (more blocks would
  // only add launch and combine latency), at most the device's resident capacity. Every launched
  // block then has a body vector for its thread 0, so every block holds a value.
  // Beyond one resident wave, each thread loops over `rounds` batches; the grid is then shrunk
  // to the fewest blocks that still cover the input in that many rounds, so that the last round
  // is nearly full too (at 2^28 int32 on 1056 resident blocks: 1041 blocks, the last round 95%
  // full instead of 6%, which would leave DRAM idle for one round trip at the end).
  const uint64_t per_block = uint64_t(threads) * reduce_policy::vectors_in_flight;
  const uint64_t blocks_needed = std::max<uint64_t>(1, (p.vectors + per_block - 1) / per_block);
  const uint64_t capacity = std::max<unsigned>(1, max_blocks);
  const uint64_t rounds = (blocks_needed + capacity - 1) / capacity;
  p.grid = unsigned((blocks_needed + rounds - 1) / rounds);
  return p;
}

}  // namespace warpfold::detail
