#pragma once
// The bench's "no combine" row: warpfold::reduce's grid, tiles and loads, each block's own
// reduction of what it read, and nothing after it. Set beside warpfold's and CUB's times, it shows
// what one launch that reads the input costs before any grid-wide combine: warpfold's time less
// this one is the price of the combine, and CUB's time over this one is the highest ratio to CUB
// that any reduce reading the data this way could reach in the same run.

#include <warpfold/detail/bulk_copy.cuh>
#include <warpfold/detail/kernel_launch.cuh>
#include <warpfold/detail/reduce_dispatch.cuh>
#include <warpfold/detail/reduce_kernel.cuh>
#include <warpfold/detail/reduce_plan.hpp>

#include <cstdint>

namespace warpfold::bench {

inline constexpr unsigned kNoCombineThreads = detail::reduce_policy::threads;

// Block b XORs the 32-bit words of tiles b, b + grid, … of `vectors` 16-byte vectors (a tile is
// kNoCombineThreads × InFlight vectors, thread t loading vectors t, t + kNoCombineThreads, …, all
// of a tile's loads in flight together, as in warpfold's kernel) and stores its XOR in
// block_words[b]. No block waits for another, and nothing combines the words: the XOR of them all
// is the XOR of the input's words, which the bench checks. (XOR: one redux instruction per warp
// for any element type, so the row's cost is the reads, not an operator.)
// Bulk (with the wide tiles): full tiles come through shared memory by bulk copies, as in
// warpfold's bulk kernel above 256 MiB (launched with detail::kBulkSharedBytes of dynamic shared
// memory); a partial last tile is loaded as above.
template <unsigned InFlight, bool Bulk = false>
__global__ void __launch_bounds__(kNoCombineThreads)
    no_combine(const detail::vector_of<unsigned, 4>* in, uint64_t vectors, unsigned* block_words) {
  using vec_t = detail::vector_of<unsigned, 4>;
  constexpr uint64_t kTile = uint64_t(kNoCombineThreads) * InFlight;
  unsigned acc = 0;
  uint64_t tile = blockIdx.x;
  if constexpr (Bulk && detail::bulk::kCompiled) {
    extern __shared__ __align__(128) unsigned char bulk_stages[];  // detail::kBulkSharedBytes
    __shared__ uint64_t stage_full[detail::reduce_policy::bulk_stages];
    const uint64_t full_tiles = vectors / kTile;
    if (tile < full_tiles) {  // the block's own condition: every thread or none
      tile = detail::bulk::fold_tiles<kNoCombineThreads, InFlight, detail::reduce_policy::bulk_stages>(
          in, tile, gridDim.x, full_tiles, bulk_stages, stage_full, [&](const vec_t(&v)[InFlight], uint64_t) {
#pragma unroll
            for (unsigned k = 0; k < InFlight; ++k) acc ^= v[k].v[0] ^ v[k].v[1] ^ v[k].v[2] ^ v[k].v[3];
          });
    }
  }
  for (; tile * kTile < vectors; tile += gridDim.x) {
    const uint64_t first = tile * kTile + threadIdx.x;
    vec_t v[InFlight];
    // Past the end a thread loads the last vector again (unconditional loads go out together)
    // and folds only its own.
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) v[k] = detail::load_vector(in + min(first + k * kNoCombineThreads, vectors - 1));
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) {
      if (first + k * kNoCombineThreads < vectors) acc ^= v[k].v[0] ^ v[k].v[1] ^ v[k].v[2] ^ v[k].v[3];
    }
  }
  __shared__ unsigned warp_words[kNoCombineThreads / 32];
  acc = __reduce_xor_sync(0xffffffffu, acc);
  if (threadIdx.x % 32 == 0) warp_words[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = __reduce_xor_sync(0xffffffffu, threadIdx.x < kNoCombineThreads / 32 ? warp_words[threadIdx.x] : 0u);
    if (threadIdx.x == 0) block_words[blockIdx.x] = acc;
  }
}

}  // namespace warpfold::bench
