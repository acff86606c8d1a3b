#pragma once
// How a device-wide reduce splits its input: pure host arithmetic, unit-tested on the CPU.
//
// The input [p, p + n) is cut into a scalar head (elements before the first 16-byte boundary),
// a body of 16-byte vectors, and a scalar tail (the elements after the last whole vector).
// Block 0 reads the head and the tail; block b reads the body's tiles b, b + grid, b + 2·grid, ...

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace warpfold::detail {

// Tuning as data, apart from the algorithm. 256 threads per block; 4 vectors of 16 bytes in
// flight per thread cover DRAM latency (Little's law: ~4.8 TB/s × ~0.7 µs ≈ 3.4 MB in flight
// needed, 132 SMs × 1280 threads (5 blocks) × 64 B = 10.8 MB offered). A block loads a tile at a
// time: the 256 × 4 vectors (16 KiB) that lie next to each other in memory, thread t taking
// vectors t, t + 256, t + 512 and t + 768 (each warp's loads coalesced, the block's 16 KiB
// contiguous).
struct reduce_policy {
  static constexpr unsigned threads = 256;
  static constexpr unsigned vectors_in_flight = 4;
  // The register budget asked of ptxas for types of up to 4 elements per vector with an
  // accumulator of up to 8 bytes: at least this many blocks per SM (__launch_bounds__), that is
  // up to 48 registers. Left to itself, ptxas fits such kernels in 32-40 registers by issuing a
  // tile's four loads two, then one and one, after folding the first ones: three memory round
  // trips in a row where one would do. With 48 it keeps the four in flight; on an H200 that made
  // 2^13-2^20 up to 8% faster and 2^24-2^28 1-5% faster than the 32-register kernel. (Since the
  // kernel's tiles load unconditionally, ptxas keeps the loads together in 32-40 registers; the
  // budget's blocks per SM still cap the grid: see max_reduce_blocks.) Smaller types (8 or 16
  // elements per vector) and wider accumulators need more registers, and spill under this
  // budget: they keep ptxas's own choice (bench/NOTES.md).
  static constexpr unsigned min_blocks_per_sm = 5;
  static constexpr unsigned vector_bytes = 16;
  // Up to this many tiles (32 KiB) one block reads them in turn: on an H200 that beat two blocks
  // and their combine (2^13 floats: 7.5 against 8.1 µs; 2^12 doubles: 7.6 against 8.1-8.5 µs);
  // at four tiles the two were even.
  static constexpr unsigned single_block_max_tiles = 2;
  // The wide kernel, for 4- and 8-byte types (has_wide_tiles; the dispatch picks it above
  // kWideAboveBytes and from 16 to 64 KiB: takes_wide_tiles): 8 vectors in flight per thread,
  // tiles of 32 KiB, a budget of 80 registers (3 blocks per SM), so 96 KiB of loads in flight
  // per SM against the narrow kernel's 80 KiB (5 blocks × 256 threads × 64 B), in half as many
  // tiles. Under 64 registers ptxas split the loop's eight loads (7 + 1, 6 + 2); under 80 it
  // issues all eight together.
  static constexpr unsigned wide_vectors_in_flight = 8;
  static constexpr unsigned wide_min_blocks_per_sm = 3;
  // The bulk kernel, for the wide kernel's reduces above kBulkAboveBytes on devices of compute
  // capability 9.0 and up: the wide kernel's 32 KiB tiles and fold order, each full tile brought
  // into shared memory by one bulk copy (cp.async.bulk, completing on an mbarrier) instead of
  // eight register loads per thread, bulk_stages tiles in flight per block (96 KiB of dynamic
  // shared memory, so 2 blocks and 192 KiB in flight per SM, where the wide kernel holds 96 KiB
  // in registers). Scratch kernels of each shape, one process, H100 and H200 (bench/NOTES.md):
  // 3 stages of 32 KiB read 0.7-1.2% faster than register loads from 2^28 to 2^30 elements of
  // floats and doubles; 4 stages (one block per SM) and 3 of 64 KiB were as fast on the H200
  // and slower on the H100; 16 KiB stages were slower on both.
  static constexpr unsigned bulk_stages = 3;
  static constexpr unsigned bulk_min_blocks_per_sm = 2;
};

// Elements of T per 16-byte vector; 1 when T does not tile 16 bytes (no vector path).
// (A variable template, not a function, so that host and device code can both use it.)
template <class T>
inline constexpr unsigned vector_elements =
    (sizeof(T) <= reduce_policy::vector_bytes && reduce_policy::vector_bytes % sizeof(T) == 0 &&
     alignof(T) == sizeof(T))
        ? unsigned(reduce_policy::vector_bytes / sizeof(T))
        : 1u;
// (alignof(T) == sizeof(T): the scalar head reaches a 16-byte boundary only from an address that
// is a multiple of sizeof(T). An 8-byte struct of two floats may start 4 bytes past one, where no
// number of whole elements does; such types are read one element at a time.)

// Reduces whose kernels get a register budget (reduce_policy::min_blocks_per_sm): types of up to
// 4 elements per vector, accumulators of up to 8 bytes.
template <class T, class Acc>
inline constexpr bool has_register_budget = vector_elements<T> <= 4 && sizeof(Acc) <= 8;

// Reduces that also have the wide kernel: 4- and 8-byte types into accumulators of up to 8 bytes.
template <class T, class Acc>
inline constexpr bool has_wide_tiles = vector_elements<T> >= 2 && has_register_budget<T, Acc>;

// Inputs of more than this many bytes take the wide kernel where the reduce has one. First
// measured on an H100 against the narrow kernel with a guarded first tile (bench/NOTES.md): at 32
// MiB the wide kernel was 5-28% faster (each block reads ~2.6 tiles, one round trip for each),
// 64-256 MiB even, 512 MiB-8 GiB 0.4-1.5% faster, ahead of CUB where the narrow kernel was
// 0.3-0.6% behind it. Since both kernels fold a full first tile unguarded, it is also ahead from
// 6 to 16 MiB (H200, GPU-side, twice: 0.1-0.6 µs for float, int32 and double maxima and float
// sums, even for int32 sums), where a polling narrow grid of 256 blocks reads two tiles per block
// in turn; at 3-4 MiB of doubles it was behind, so the switch is above 4 MiB.
inline constexpr uint64_t kWideAboveBytes = uint64_t(4) << 20;

// Small inputs of more than one narrow tile and at most a single block's worth of wide tiles
// (16 KiB < bytes ≤ 64 KiB) take the wide kernel too: one block reads them in one or two round
// trips, where the narrow kernel takes two round trips (up to 32 KiB) or three or four blocks and
// the combine of their partials. On an H200, in one process: 0.4-0.9 µs faster from 48 to 64 KiB
// for float and double sums and maxima, up to 0.2 µs at 24-32 KiB; at 16 KiB and below (one
// narrow tile) the narrow kernel was 0.15-0.4 µs faster.
inline constexpr uint64_t kNarrowTileBytes =
    uint64_t(reduce_policy::threads) * reduce_policy::vectors_in_flight * reduce_policy::vector_bytes;
inline constexpr uint64_t kWideSingleBlockBytes = uint64_t(reduce_policy::threads) *
                                                  reduce_policy::wide_vectors_in_flight * reduce_policy::vector_bytes *
                                                  reduce_policy::single_block_max_tiles;

// Whether a reduce of n items of T into Acc takes the wide kernel.
template <class T, class Acc>
constexpr bool takes_wide_tiles(uint64_t n) {
  const uint64_t bytes = n * sizeof(T);
  return has_wide_tiles<T, Acc> &&
         (bytes > kWideAboveBytes || (bytes > kNarrowTileBytes && bytes <= kWideSingleBlockBytes));
}

// Inputs of more than this many bytes take the bulk kernel where the reduce has the wide one and
// the device runs bulk copies. Below it the bulk kernel was slower or even: from 4 to 32 MiB,
// where the input sits in the L2 and a block reads one to a few tiles, waiting for a whole 32 KiB
// copy before folding any of it cost 0.2-1 µs; at 64-256 MiB it was within ±0.7% of the wide
// kernel either way (H100 and H200, scratch, one process; bench/NOTES.md).
inline constexpr uint64_t kBulkAboveBytes = uint64_t(256) << 20;

// The bulk kernel's dynamic shared memory: bulk_stages wide tiles.
inline constexpr unsigned kBulkStageBytes =
    reduce_policy::threads * reduce_policy::wide_vectors_in_flight * reduce_policy::vector_bytes;
inline constexpr unsigned kBulkSharedBytes = reduce_policy::bulk_stages * kBulkStageBytes;

// Whether a reduce of n items of T into Acc takes the bulk kernel on a device that runs it.
template <class T, class Acc>
constexpr bool takes_bulk_tiles(uint64_t n) {
  return has_wide_tiles<T, Acc> && n * sizeof(T) > kBulkAboveBytes;
}

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

// `address` is the byte address of element 0 (a multiple of elem_bytes), `elem_bytes` = sizeof(T),
// `vec_elems` is vector_elements<T>, `max_blocks` = SMs × resident blocks per SM,
// `shaped_max_blocks`: where not 0, a grid just past it (at most twice as many tiles) is cut to it.
// `in_flight` is the vectors each thread loads per tile (the kernel's InFlight).
inline reduce_plan plan_reduce(uint64_t n, uintptr_t address, size_t elem_bytes, unsigned vec_elems,
                               unsigned threads, unsigned max_blocks, unsigned shaped_max_blocks = 0,
                               unsigned in_flight = reduce_policy::vectors_in_flight) {
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
  // One block per tile (more blocks would only add launch and combine latency), at most the
  // device's resident capacity: beyond one wave, blocks take tiles grid apart in turn. Block b
  // starts at tile b, so every launched block has a body vector for its thread 0 and holds a
  // value. The full capacity stays busy even when the last round is thin: in one process on an
  // H200, shrinking the grid so that the last round is nearly full (1041 blocks instead of 1056
  // at 2^28 int32) measured 0.2-1% slower from 2^24 to 2^30, the idle block slots costing more
  // than the one thin round.
  const uint64_t tile = uint64_t(threads) * in_flight;
  const uint64_t tiles = std::max<uint64_t>(1, (p.vectors + tile - 1) / tile);
  if (tiles <= reduce_policy::single_block_max_tiles) return p;  // grid 1
  p.grid = unsigned(std::min<uint64_t>(tiles, std::max<unsigned>(1, max_blocks)));
  // Just past one partial per combiner thread, half the blocks taking two tiles each beat one
  // tile each (H200, 2^21 floats: 9.0-9.9 against 9.4-10.7 µs, measured when the larger grid
  // also took a slower combine than the smaller one).
  if (shaped_max_blocks > 0 && p.grid > shaped_max_blocks && tiles <= 2ull * shaped_max_blocks)
    p.grid = shaped_max_blocks;
  return p;
}

}  // namespace warpfold::detail
