#pragma once
// The bench's "no combine" row: warpfold::reduce's grid, tiles and loads, each block's own
// reduction of what it read, and nothing after it. Set beside warpfold's and CUB's times, it shows
// what one launch that reads the input costs before any grid-wide combine: warpfold's time less
// this one is the price of the combine, and CUB's time over this one is the highest ratio to CUB
// that any reduce reading the data this way could reach in the same run.

#include <warpfold/detail/read_probe.cuh>  // all of the library's internals this row uses
#include <warpfold/ops.cuh>
#include <warpfold/warp/warp_reduce.cuh>

#include <cstdint>

namespace warpfold::bench {

namespace probe = warpfold::detail::read_probe;

// Block b XORs the 32-bit words of tiles b, b + grid, … of `vectors` 16-byte vectors through
// warpfold's tile loader (kernel Kind's tiles; the bulk kind brings full tiles by bulk copies, as
// warpfold's bulk kernel does) and stores its XOR in block_words[b]. No block waits for another,
// and nothing combines the words: the XOR of them all is the XOR of the input's words, which the
// bench checks. (XOR: one redux instruction per warp for any element type from sm_80, five shuffles
// before it, so the row's cost is the reads, not an operator.)
template <probe::kernel_kind Kind>
__global__ void __launch_bounds__(probe::kThreads) no_combine(const unsigned* in, uint64_t vectors, unsigned* block_words) {
  using loader_t = probe::word_loader<Kind>;
  constexpr unsigned kInFlight = loader_t::kInFlight;
  using item = typename loader_t::item;
  const loader_t loader{{in, 0, vectors}};
  unsigned acc = 0;
  const auto xor_tile = [&](const item(&v)[kInFlight], uint64_t tile) {
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k)
      if (loader.item_of(tile, k) < vectors) acc ^= v[k].v[0] ^ v[k].v[1] ^ v[k].v[2] ^ v[k].v[3];
  };
  uint64_t tile = blockIdx.x;
  if constexpr (Kind == probe::kernel_kind::bulk && probe::kBulkCopies) {
    constexpr unsigned kStages = probe::kBulkStages;
    extern __shared__ __align__(128) unsigned char bulk_stages[];
    __shared__ uint64_t stage_full[kStages];
    if (tile < loader.full_tiles())  // the block's own condition: every thread or none
      tile = probe::bulk_read_full_tiles<kStages>(loader, tile, gridDim.x, bulk_stages, stage_full, xor_tile);
  }
  // Every tile loaded whole (past the end the last vector again), folded in range.
  for (; tile * loader_t::kTile < vectors; tile += gridDim.x) {
    item v[kInFlight];
    loader.load_partial(tile, v);
    xor_tile(v, tile);
  }
  __shared__ unsigned warp_words[probe::kThreads / 32];
  acc = warpfold::warp::reduce_down_all(acc, warpfold::bit_xor{});  // lane 0's is the warp's
  if (threadIdx.x % 32 == 0) warp_words[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = warpfold::warp::reduce_down_all(threadIdx.x < probe::kThreads / 32 ? warp_words[threadIdx.x] : 0u,
                                          warpfold::bit_xor{});
    if (threadIdx.x == 0) block_words[blockIdx.x] = acc;
  }
}

}  // namespace warpfold::bench
