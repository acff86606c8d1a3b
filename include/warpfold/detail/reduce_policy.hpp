#pragma once
// The tuning of the single-pass reduce, as data: the block size, the loads each thread keeps in
// flight, the register budgets, the bulk copies' stages and the input sizes at which the dispatch
// changes kernel. One policy per architecture family; docs/design.md's decision record gives the
// measurement behind each value. Pure host and device constants, unit-tested on the CPU.

#include <cstdint>

// Functions that device code evaluates at compile time too (template arguments, launch bounds).
#ifndef WARPFOLD_HOST_DEVICE
#if defined(__CUDACC__)
#define WARPFOLD_HOST_DEVICE __host__ __device__
#else
#define WARPFOLD_HOST_DEVICE
#endif
#endif

namespace warpfold::detail {

// The three kernels one reduce may launch: the narrow one (short tiles), the wide one (long
// tiles) and the bulk one (the wide tiles brought into shared memory by bulk copies).
enum class kernel_kind : unsigned { narrow, wide, bulk };

struct reduce_policy {
  unsigned arch;                    // the lowest __CUDA_ARCH__ it serves (750, 800, 900)
  unsigned threads;                 // per block
  unsigned vector_bytes;            // per load: one 16-byte vector
  unsigned narrow_vectors;          // vectors in flight per thread per tile, narrow kernel
  unsigned wide_vectors;            // the same, wide and bulk kernels
  unsigned narrow_min_blocks;       // blocks per SM the register budget guarantees (__launch_bounds__)
  unsigned wide_min_blocks;
  unsigned bulk_min_blocks;
  unsigned bulk_stages;             // tiles in flight per block in the bulk kernel (0: no bulk copies)
  unsigned single_block_max_tiles;  // inputs of up to this many tiles take one block
  unsigned warp_combine_max_blocks; // grids up to this size combine in warp 0 alone
  unsigned combine_words_in_flight; // partial words each combiner thread polls at once beyond that
  uint64_t wide_above_bytes;        // inputs above this take the wide kernel...
  uint64_t bulk_above_bytes;        // ...and above this the bulk kernel, where it exists

  WARPFOLD_HOST_DEVICE constexpr unsigned vectors(kernel_kind k) const { return k == kernel_kind::narrow ? narrow_vectors : wide_vectors; }
  WARPFOLD_HOST_DEVICE constexpr unsigned min_blocks(kernel_kind k) const {
    return k == kernel_kind::narrow ? narrow_min_blocks : k == kernel_kind::wide ? wide_min_blocks : bulk_min_blocks;
  }
  WARPFOLD_HOST_DEVICE constexpr uint64_t tile_bytes(kernel_kind k) const { return uint64_t(threads) * vectors(k) * vector_bytes; }
  // The bulk kernel's dynamic shared memory: bulk_stages wide tiles.
  WARPFOLD_HOST_DEVICE constexpr unsigned bulk_shared_bytes() const { return unsigned(bulk_stages * tile_bytes(kernel_kind::bulk)); }
};

// Hopper (compute capability 9.0 and up): the policy the decision record tunes.
// 48 registers (5 blocks of 256) keep a narrow tile's 4 loads in flight, 80 (3 blocks) the wide
// tile's 8; 3 bulk stages of 32 KiB allow 2 blocks per SM; a combiner thread polls 8 words (4
// partials of up to 8 bytes) at once. (Functions, not variables, so that
// device code can evaluate them at compile time.)
WARPFOLD_HOST_DEVICE constexpr reduce_policy hopper_policy() {
  return {900, 256, 16, 4, 8, 5, 3, 2, 3, 2, 32, 8, uint64_t(4) << 20, uint64_t(256) << 20};
}
// Ampere and Ada (8.x): Hopper's values without bulk copies (5 blocks of 48 registers fit every
// 8.x SM: at least 1536 threads and 64 K registers).
WARPFOLD_HOST_DEVICE constexpr reduce_policy ampere_policy() {
  reduce_policy p = hopper_policy();
  p.arch = 800;
  p.bulk_stages = 0;
  return p;
}
// Turing (7.5): 1024 threads per SM hold 4 blocks of 256, so the narrow budget is 4 blocks (64
// registers) instead of 5.
WARPFOLD_HOST_DEVICE constexpr reduce_policy turing_policy() {
  reduce_policy p = ampere_policy();
  p.arch = 750;
  p.narrow_min_blocks = 4;
  return p;
}
inline constexpr reduce_policy kHopperPolicy = hopper_policy();
inline constexpr reduce_policy kAmperePolicy = ampere_policy();
inline constexpr reduce_policy kTuringPolicy = turing_policy();

// The policy of code compiled for `arch` (a __CUDA_ARCH__ value: 750, 860, 900, ...).
WARPFOLD_HOST_DEVICE constexpr reduce_policy policy_for_arch(unsigned arch) {
  return arch >= 900 ? hopper_policy() : arch >= 800 ? ampere_policy() : turing_policy();
}

// The architecture of the code being compiled: the device pass's, Hopper's on the host (whose
// code needs only the values every policy shares: see the static_asserts below).
#if defined(__CUDA_ARCH__)
inline constexpr unsigned kCompiledArch = __CUDA_ARCH__;
#else
inline constexpr unsigned kCompiledArch = 900;
#endif
WARPFOLD_HOST_DEVICE constexpr reduce_policy compiled_policy() { return policy_for_arch(kCompiledArch); }

// The kernels' shapes (block size, vectors per tile) are part of their template identity, which
// the host and device passes must agree on: every policy shares them.
WARPFOLD_HOST_DEVICE constexpr bool same_kernel_shapes(const reduce_policy& a, const reduce_policy& b) {
  return a.threads == b.threads && a.vector_bytes == b.vector_bytes && a.narrow_vectors == b.narrow_vectors &&
         a.wide_vectors == b.wide_vectors;
}
static_assert(same_kernel_shapes(hopper_policy(), ampere_policy()) && same_kernel_shapes(hopper_policy(), turing_policy()),
              "every architecture's kernels have the same block and tile shapes");
inline constexpr unsigned kThreads = hopper_policy().threads;
inline constexpr unsigned kVectorBytes = hopper_policy().vector_bytes;

// Elements of T per 16-byte vector; 1 when T does not tile 16 bytes (no vector path). A type
// whose alignment is below its size (a struct of two floats) cannot always reach a 16-byte
// boundary in whole elements, so it is read one element at a time.
template <class T>
inline constexpr unsigned vector_elements =
    (sizeof(T) <= kVectorBytes && kVectorBytes % sizeof(T) == 0 && alignof(T) == sizeof(T))
        ? unsigned(kVectorBytes / sizeof(T))
        : 1u;

// Reduces whose kernels get a register budget: types of up to 4 elements per vector with
// accumulators of up to 8 bytes. Smaller types and wider accumulators spill under it and keep
// ptxas's own register count.
template <class T, class Acc>
inline constexpr bool has_register_budget = vector_elements<T> <= 4 && sizeof(Acc) <= 8;

// Types the wide and bulk loaders can read: those with a vector path of at least 2 elements.
template <class T>
inline constexpr bool has_wide_loads = vector_elements<T> >= 2;

// Reduces the dispatch sends to the wide and bulk kernels by itself: wide loads and a register
// budget. Others may still name those kernels (dispatch_reduce's Kind).
template <class T, class Acc>
inline constexpr bool has_wide_tiles = has_wide_loads<T> && has_register_budget<T, Acc>;

// __launch_bounds__'s blocks per SM for a reduce of T into Acc by kernel `kind` compiled for
// `arch`; 0 emits no bound, leaving the register count to ptxas.
template <class T, class Acc>
WARPFOLD_HOST_DEVICE constexpr unsigned min_blocks_per_sm(kernel_kind kind, unsigned arch) {
  return has_register_budget<T, Acc> ? policy_for_arch(arch).min_blocks(kind) : 0u;
}

// Small inputs of more than one narrow tile and at most a single block's worth of wide tiles take
// the wide kernel too: one block reads them in one or two round trips.
constexpr uint64_t narrow_tile_bytes(const reduce_policy& p) { return p.tile_bytes(kernel_kind::narrow); }
constexpr uint64_t wide_single_block_bytes(const reduce_policy& p) {
  return p.tile_bytes(kernel_kind::wide) * p.single_block_max_tiles;
}

// Whether the dispatch sends a reduce of n items of T into Acc to the wide kernel.
template <class T, class Acc>
constexpr bool takes_wide_tiles(uint64_t n, const reduce_policy& p = kHopperPolicy) {
  const uint64_t bytes = n * sizeof(T);
  return has_wide_tiles<T, Acc> &&
         (bytes > p.wide_above_bytes || (bytes > narrow_tile_bytes(p) && bytes <= wide_single_block_bytes(p)));
}

// Whether it sends it to the bulk kernel, on a device whose kernel has bulk copies.
template <class T, class Acc>
constexpr bool takes_bulk_tiles(uint64_t n, const reduce_policy& p = kHopperPolicy) {
  return has_wide_tiles<T, Acc> && n * sizeof(T) > p.bulk_above_bytes;
}

}  // namespace warpfold::detail
