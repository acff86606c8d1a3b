#pragma once
// Bulk copies from global into shared memory (cp.async.bulk, compute capability 9.0), completing
// on mbarriers, and the pipeline of the reduce's bulk kernel built on them; the segments kernel
// stages part of a segment's first tile with them.
//
// A bulk copy is one instruction for a whole tile: the copy engine moves it while the block's
// threads fold an earlier one, and it holds no register, so a block keeps several tiles in
// flight where register loads keep one (the policy's bulk_stages). The wrappers exist for
// device code of compute capability 9.0 and up; elsewhere they trap, and no code reaches them
// there: the dispatch never launches the bulk kernel (capacity_of in reduce_dispatch.cuh), and
// the segments kernel stages only where kCompiled holds.

#include <cstdint>

namespace warpfold::detail::bulk {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kCompiled = false;
#else
inline constexpr bool kCompiled = true;
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}

// An mbarrier that completes a phase at one arrival and the bytes it was told to expect.
__device__ __forceinline__ void init_barrier(uint64_t* barrier) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
#else
  __trap();
#endif
}

// Makes initialised barriers visible to the copy engine (before the block's barrier).
__device__ __forceinline__ void fence_barrier_init() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  __trap();
#endif
}

// Arrives on `barrier` expecting `bytes`, and copies them from `src` (global, 16-byte aligned) to
// `dst` (shared, 16-byte aligned); the barrier's phase completes when they have landed.
__device__ __forceinline__ void copy_async(void* dst, const void* src, unsigned bytes, uint64_t* barrier) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
#else
  __trap();
#endif
}

// Orders this block's earlier shared-memory accesses (after a barrier: every thread's) before the
// bulk copies the calling thread issues next, which write through another proxy.
__device__ __forceinline__ void fence_before_copies() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __trap();
#endif
}

// Waits until the phase of `barrier` with this parity has completed.
__device__ __forceinline__ void wait(uint64_t* barrier, unsigned parity) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra WAIT;\n"
      "}" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
#else
  __trap();
#endif
}

// The block's tiles first, first + step, … below end, each of Threads × InFlight vectors (a
// tile's bytes: kTileBytes), copied into `stages` (Stages × kTileBytes of shared memory, 16-byte
// aligned) Stages at a time, and handed to fold_tile(v, tile): thread t's vectors t + k·Threads
// of the tile, in registers, as register loads would have given them. Every thread of the block
// calls it (it holds block barriers). Returns the first tile of the sequence at or past end.
template <unsigned Threads, unsigned InFlight, unsigned Stages, class Vec, class FoldTile>
__device__ __forceinline__ uint64_t fold_tiles(const Vec* body, uint64_t first, uint64_t step, uint64_t end,
                                               unsigned char* stages, uint64_t (&full)[Stages],
                                               FoldTile&& fold_tile) {
  constexpr uint64_t kTileVectors = uint64_t(Threads) * InFlight;
  constexpr unsigned kTileBytes = unsigned(kTileVectors * sizeof(Vec));
  const auto copy_tile = [&](uint64_t tile, unsigned stage) {
    copy_async(stages + stage * kTileBytes, body + tile * kTileVectors, kTileBytes, &full[stage]);
  };
  if (threadIdx.x == 0) {
#pragma unroll
    for (unsigned s = 0; s < Stages; ++s) init_barrier(&full[s]);
    fence_barrier_init();
#pragma unroll
    for (unsigned s = 0; s < Stages; ++s)
      if (first + s * step < end) copy_tile(first + s * step, s);
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them
  uint64_t tile = first;
  for (unsigned i = 0; tile < end; tile += step, ++i) {
    const unsigned stage = i % Stages;
    wait(&full[stage], (i / Stages) % 2);
    const Vec* staged = reinterpret_cast<const Vec*>(stages + stage * kTileBytes);
    Vec v[InFlight];
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) v[k] = staged[threadIdx.x + k * Threads];
    // Every thread has read the stage before the next copy overwrites it.
    __syncthreads();
    if (threadIdx.x == 0 && tile + Stages * step < end) copy_tile(tile + Stages * step, stage);
    fold_tile(v, tile);
  }
  return tile;
}

}  // namespace warpfold::detail::bulk
