#pragma once
// How a device-wide reduce splits its input: pure host arithmetic, unit-tested on the CPU.
//
// The input [p, p + n) is cut into a scalar head (elements before the first 16-byte boundary),
// a body of 16-byte vectors, and a scalar tail (the elements after the last whole vector).
// Block 0 reads the head and the tail; block b reads the body's tiles b, b + grid, b + 2·grid, ...

#include <warpfold/detail/reduce_policy.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace warpfold::detail {

// What is wrong with a reduce's pointers and count, found before any device is asked (the
// dispatch maps it to cudaErrorInvalidValue or cudaErrorMisalignedAddress). `temp` is the temp
// storage of a run (not a size query); its tagged partials are 8-byte words.
enum class argument_problem { none, null_pointer, misaligned };
inline argument_problem check_reduce_arguments(const void* temp, const void* in, size_t in_align, const void* out,
                                               size_t out_align, uint64_t n) {
  if (temp == nullptr || out == nullptr || (n > 0 && in == nullptr)) return argument_problem::null_pointer;
  const auto misaligned = [](const void* p, size_t align) { return reinterpret_cast<uintptr_t>(p) % align != 0; };
  if (misaligned(in, in_align) || misaligned(out, out_align) || misaligned(temp, 8)) return argument_problem::misaligned;
  return argument_problem::none;
}

struct reduce_plan {
  uint64_t head = 0;    // scalar elements before the first aligned vector
  uint64_t vectors = 0; // whole vectors in the body
  uint64_t tail = 0;    // scalar elements after the body
  unsigned grid = 1;    // blocks to launch (≥ 1, even for n = 0: block 0 writes init)
};

// The head, body and tail of n elements of elem_bytes at byte `address` (a multiple of
// elem_bytes), in vectors of vec_elems elements (vector_elements<T>; 1: no vector path).
inline reduce_plan split_input(uint64_t n, uintptr_t address, size_t elem_bytes, unsigned vec_elems) {
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
  return p;
}

// split_input, and the grid: one block per tile of threads × in_flight vectors, at most
// max_blocks (the kernel's resident capacity: beyond one wave, blocks take tiles grid apart in
// turn, and every block slot stays busy even when the last round is thin). Block b starts at
// tile b, so every launched block has a body vector for its thread 0. Inputs of up to
// single_block_tiles tiles take one block (a second tile read in turn costs less than a second
// block and the combine). `shaped_max_blocks`, where not 0, cuts a grid just past it (at most
// twice as many tiles) to it: there two tiles per block cost less than a second partial per
// combiner thread.
inline reduce_plan plan_reduce(uint64_t n, uintptr_t address, size_t elem_bytes, unsigned vec_elems,
                               unsigned threads, unsigned max_blocks, unsigned shaped_max_blocks = 0,
                               unsigned in_flight = kHopperPolicy.narrow_vectors,
                               unsigned single_block_tiles = kHopperPolicy.single_block_max_tiles) {
  reduce_plan p = split_input(n, address, elem_bytes, vec_elems);
  const uint64_t tile = uint64_t(threads) * in_flight;
  const uint64_t tiles = std::max<uint64_t>(1, (p.vectors + tile - 1) / tile);
  if (tiles <= single_block_tiles) return p;  // grid 1
  p.grid = unsigned(std::min<uint64_t>(tiles, std::max<unsigned>(1, max_blocks)));
  if (shaped_max_blocks > 0 && p.grid > shaped_max_blocks && tiles <= 2ull * shaped_max_blocks)
    p.grid = shaped_max_blocks;
  return p;
}

}  // namespace warpfold::detail
