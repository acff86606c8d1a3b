#pragma once
// The single-pass device-wide reduce kernel.
//
// One launch does all the work: each block reduces its share of the input (tiles of 16 KiB, or
// 32 KiB in the wide kernel that inputs of 16-64 KiB and above 4 MiB take, brought in by bulk
// copies in the bulk kernel above 256 MiB) in registers and stores one tagged partial in temp
// storage; the last block of the grid polls the partials, reduces them and writes the result
// (see kPartialWords). The fold order depends only on the
// grid, the block size, the kernel and n, so floating-point results are bitwise reproducible run
// to run on a device.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/bulk_copy.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/ops.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace warpfold::detail {

// The combine: every block but the last stores its partial in temp storage as tagged words, and
// the last block (blockIdx.x = gridDim.x - 1) polls them and folds them in block order.
//
// A partial travels as kPartialWords<Acc> 64-bit words, word-major (word w of block b at
// w * gridDim.x + b, so that the combiner's loads coalesce). Each word holds 32 bits of the
// partial in its low half and half of the launch's 64-bit tag in its high half (the tag's high
// half in even words, its low half in odd ones): a 64-bit store is single-copy atomic, so once
// every word of a partial shows this launch's tag, every one of its 32-bit pieces is this
// launch's. The tag comes from an epoch, a 64-bit word at the start of the temp storage: each
// block's thread 0 (and each thread of the combiner) reads it on entry, and the combiner, once it
// holds every partial (so after every block's read), stores epoch + 1 for the next reduce on that
// storage. The tag is the epoch XOR a random 64-bit salt drawn once per process, mixed
// (splitmix64's finaliser). Temp storage serves one reduce at a time (stream order, as with
// CUB), so successive reduces on it, graph replays included, get successive epochs: words an
// earlier one left never match, and other leftovers (garbage in fresh storage, another
// process's, a caller's data) match with probability 2^-64. So nothing needs clearing before or
// after a reduce, and reduces share no state: any number may run at once, on any streams,
// captured in graphs or not, each with its own temp storage.
// (An earlier design kept tickets and partials in module memory, in 512 slots handed out in
// turn; a reduce still running 512 calls later shared its slot with a new one. The launch's
// %gridid, tried as the tag, repeats between launches: it names a grid among those resident.)
//
// The combiner waits for the other blocks of its own grid only, never the reverse. Blocks of a
// one-dimensional grid are dispatched in index order, so when the last one runs, all others have
// started and finish without waiting: no deadlock. (The grid never exceeds the kernel's resident
// capacity on the device, either.) Results are bitwise those of the fold order described above.
template <class Acc>
inline constexpr unsigned kPartialWords = sizeof(Acc) <= 8 ? 2u : unsigned((sizeof(Acc) + 3) / 4);

// Temp storage: the epoch word, then the partials of up to `blocks` blocks.
template <class Acc>
constexpr size_t tagged_partial_bytes(unsigned blocks) {
  return (1 + size_t(blocks) * kPartialWords<Acc>) * sizeof(unsigned long long);
}

// The epoch word at the start of temp storage (see kPartialWords).
__device__ __forceinline__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> epoch_word(
    unsigned long long* temp) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*temp);
}

// splitmix64's finaliser: every bit of x reaches every bit of the result. (The host mixes the
// process's salt with it too: process_salt.)
__host__ __device__ constexpr unsigned long long mix64(unsigned long long x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The tag of the reduce that found `epoch` in its temp storage.
__device__ __forceinline__ unsigned long long launch_tag(unsigned long long epoch, unsigned long long salt) {
  return mix64(epoch ^ salt);
}

// The tagged partials of one launch in temp storage.
template <class Acc>
struct tagged_partials {
  static constexpr unsigned kWords = kPartialWords<Acc>;
  unsigned long long* words;  // kWords × gridDim.x, word-major
  unsigned blocks;
  unsigned long long tag;

  __device__ __forceinline__ unsigned long long tag_half(unsigned w) const {
    return (w % 2 == 0 ? tag >> 32 : tag & 0xffffffffull) << 32;
  }
  __device__ __forceinline__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(unsigned b,
                                                                                                   unsigned w) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[size_t(w) * blocks + b]);
  }
  __device__ __forceinline__ void store(unsigned b, const Acc& partial) const {
    uint32_t pieces[kWords] = {};
    memcpy(pieces, &partial, sizeof(Acc));
#pragma unroll
    for (unsigned w = 0; w < kWords; ++w) word(b, w).store(tag_half(w) | pieces[w], cuda::memory_order_relaxed);
  }
  __device__ __forceinline__ bool carries_tag(unsigned long long seen, unsigned w) const {
    return (seen & 0xffffffff00000000ull) == tag_half(w);
  }
  // Loads every word of partial b (all in flight together).
  __device__ __forceinline__ void load(unsigned b, unsigned long long (&seen)[kWords]) const {
#pragma unroll
    for (unsigned w = 0; w < kWords; ++w) seen[w] = word(b, w).load(cuda::memory_order_relaxed);
  }
  // Whether every word seen carries this launch's tag; if not, loads again those that do not.
  // A caller polling several partials reloads all their stale words before it waits on any:
  // one round trip per round, where waiting word by word would take one per word.
  __device__ __forceinline__ bool reload_stale(unsigned b, unsigned long long (&seen)[kWords]) const {
    bool all = true;
#pragma unroll
    for (unsigned w = 0; w < kWords; ++w) {
      if (!carries_tag(seen[w], w)) {
        all = false;
        seen[w] = word(b, w).load(cuda::memory_order_relaxed);
      }
    }
    return all;
  }
  // The partial in words that all carry the tag.
  __device__ __forceinline__ Acc value(const unsigned long long (&seen)[kWords]) const {
    uint32_t pieces[kWords];
#pragma unroll
    for (unsigned w = 0; w < kWords; ++w) pieces[w] = uint32_t(seen[w]);
    Acc partial;
    memcpy(&partial, pieces, sizeof(Acc));
    return partial;
  }
};

// 16 bytes of T, loaded in one instruction through the read-only path (ld.global.nc). Hints that
// looked free cost time: with L1::no_allocate the loads measured the same as without on an H100
// at every size but 32 MiB, the first past half its L2, where they ran 14-21% slower after a run
// of another kernel over the same buffer (CUB's, in the bench) and no faster otherwise; an
// L2::256B prefetch hint measured 7% slower at 2^28 on an H200 (bench/NOTES.md).
template <class T, unsigned N>
struct alignas(16) vector_of {
  T v[N];
};

template <class T, unsigned N>
__device__ __forceinline__ vector_of<T, N> load_vector(const vector_of<T, N>* p) {
  static_assert(sizeof(vector_of<T, N>) == 16, "vector loads are 16 bytes");
  uint4 raw;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(raw.x), "=r"(raw.y), "=r"(raw.z), "=r"(raw.w)
               : "l"(p));
  vector_of<T, N> out;
  memcpy(&out, &raw, 16);
  return out;
}

// A running fold that starts empty (no identity element is required of the operator).
template <class Acc, class Op>
struct fold {
  Acc acc;
  bool has = false;
  Op op;
  __device__ __forceinline__ void add(const Acc& x) {
    acc = has ? op(acc, x) : x;
    has = true;
  }
};

// One reduce's arguments. `Form` says what happens to each element as it is loaded and to the
// total at the end (see reduce_forms.cuh): form.lift<Acc>(element, index) gives the accumulator,
// form.finish(op, init, total, has_total) the output (has_total is false for n = 0).
template <class T, class Acc, class Out, class Op, class Form>
struct reduce_params {
  using input = T;
  using accumulator = Acc;
  using op_type = Op;
  const T* in;
  uint64_t n;
  reduce_plan plan;
  unsigned long long* temp;  // tagged_partial_bytes<Acc>(gridDim.x): the epoch, then the partials
  Out* out;
  Acc init;
  Op op;
  Form form;
  unsigned long long salt;  // this process's, for launch_tag
};

// __launch_bounds__'s blocks per SM for a reduce of T into Acc (see reduce_policy::
// min_blocks_per_sm); 0 emits no bound, leaving the register count to ptxas.
template <class T, class Acc, unsigned InFlight, bool Bulk>
inline constexpr unsigned min_blocks_per_sm =
    !has_register_budget<T, Acc>                   ? 0u
    : Bulk                                         ? reduce_policy::bulk_min_blocks_per_sm
    : InFlight == reduce_policy::vectors_in_flight ? reduce_policy::min_blocks_per_sm
                                                   : reduce_policy::wide_min_blocks_per_sm;

// Params: a reduce_params. InFlight: vectors each thread loads per tile (reduce_policy::
// vectors_in_flight, or wide_vectors_in_flight for the wide kernel of has_wide_tiles reduces).
// Bulk (with the wide tiles only): the bulk kernel, whose full tiles come through shared memory
// by bulk copies (bulk_copy.cuh), launched with kBulkSharedBytes of dynamic shared memory; its
// threads fold the same vectors in the same order as the wide kernel's.
// The kernel's mangled name is kept short (one Params argument, one Form type in it, not a lift
// and a finish type apiece): cudaLaunchKernel, the fallback launch, pays for every character of
// it at every launch, about 1.6 ns each on an H100; the driver's launch with a cached handle
// does not (bench/NOTES.md).
template <class Params, unsigned InFlight, bool Bulk = false>
__global__ void __launch_bounds__(reduce_policy::threads,
                                  (min_blocks_per_sm<typename Params::input, typename Params::accumulator, InFlight,
                                                     Bulk>))
    single_pass(const Params p) {
  using T = typename Params::input;
  using Acc = typename Params::accumulator;
  using Op = typename Params::op_type;
  auto lift = [&](const T& x, uint64_t i) { return p.form.template lift<Acc>(x, i); };
  auto finish = [&](const Acc& total, bool has_total) { return p.form.finish(p.op, p.init, total, has_total); };
  constexpr unsigned kThreads = reduce_policy::threads;
  constexpr unsigned kVec = vector_elements<T>;
  constexpr unsigned kInFlight = InFlight;
  using vec_t = vector_of<T, kVec>;
  __shared__ block::reduce_storage<Acc, kThreads> storage;

  constexpr uint64_t kTile = uint64_t(kThreads) * kInFlight;  // one load per thread per vector in flight
  fold<Acc, Op> f{Acc{}, false, p.op};

  // The epoch (see kPartialWords) is loaded before anything else, by the threads that use the
  // tag: thread 0 of each block, which stores the partial, and the combiner (the grid's last
  // block). A partial's tag needs it only at the end; loaded here, its round trip overlaps the
  // body's loads instead of following the folds (a gain within noise on an H100, ~0.04 µs). Every
  // thread loading it first cost up to 0.5 µs from 4 MiB up: thousands of loads of one L2 line
  // at once, queued with the body's loads (bench/NOTES.md).
  const bool combiner = gridDim.x > 1 && blockIdx.x == gridDim.x - 1;
  const unsigned long long epoch =
      gridDim.x > 1 && (threadIdx.x == 0 || combiner) ? epoch_word(p.temp).load(cuda::memory_order_relaxed) : 0;

  // Head and tail: fewer than kVec elements each, read by the first threads of block 0 (pointers
  // that are not 16-byte aligned, sizes that are not a multiple of kVec). Loaded here, before the
  // body, so that their round trip overlaps the first tile's instead of following the body's
  // folds; folded after the body, as before. (Head and tail are below kVec: 32-bit compares.)
  const unsigned head = unsigned(p.plan.head), tail = unsigned(p.plan.tail);
  const bool has_head = blockIdx.x == 0 && threadIdx.x < head;
  const bool has_tail = blockIdx.x == 0 && threadIdx.x < tail;
  const uint64_t tail_start = p.plan.head + p.plan.vectors * kVec;
  T head_item{}, tail_item{};
  if (has_head) head_item = p.in[threadIdx.x];
  if (has_tail) tail_item = p.in[tail_start + threadIdx.x];

  // Body: block b folds tiles b, b + grid, ...; in each, thread t loads vectors t + k·kThreads
  // (k < kInFlight) before folding them. Vector i covers elements head + i·kVec … + kVec - 1.
  using item_t = std::conditional_t<(kVec > 1), vec_t, T>;  // T itself where T does not tile 16 B
  auto load_item = [&](uint64_t i) -> item_t {
    if constexpr (kVec > 1) return load_vector(reinterpret_cast<const vec_t*>(p.in + p.plan.head) + i);
    else return p.in[i];
  };
  auto fold_item = [&](const item_t& v, uint64_t i) {
    if constexpr (kVec > 1) {
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j) f.add(lift(v.v[j], p.plan.head + i * kVec + j));
    } else {
      f.add(lift(v, i));
    }
  };
  // A partial tile (the body's last, or a block's only one when the input is small): every thread
  // loads, past the body's end from its last vector again, and folds only its own vectors.
  // Unconditional loads go out together; ptxas split predicated ones (double sum 1 + 3, the wide
  // kernels 6 + 2 or 1 + 5 + 2), each split a memory round trip more for a block that reads only
  // this tile. (nvcc 13.0 issues each tile's loads together in every form here for int32, float
  // and double sum and max, narrow and wide: checked in the SASS; bench/NOTES.md.)
  auto fold_guarded_tile = [&](uint64_t tile) {
    const uint64_t first = tile * kTile + threadIdx.x;
    const uint64_t left = p.plan.vectors - tile * kTile;  // ≥ 1
    const unsigned in_tile = unsigned(left < kTile ? left : kTile);
    item_t v[kInFlight];
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) v[k] = load_item(min(first + k * kThreads, p.plan.vectors - 1));
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k)
      if (threadIdx.x + k * kThreads < in_tile) fold_item(v[k], first + k * kThreads);
  };
  auto fold_full_tile = [&](uint64_t tile) {
    const uint64_t first = tile * kTile + threadIdx.x;
    item_t v[kInFlight];
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) v[k] = load_item(first + k * kThreads);
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) fold_item(v[k], first + k * kThreads);
  };
  // A full first tile is folded unguarded and apart from the loop: no predicates, and the fold
  // knows it starts empty, so its first element needs no test. Every block but the last takes
  // this path, and a block with a single tile (every block up to 2^20 floats) runs little else,
  // so each instruction cut here is on the critical path of small reduces: with the guarded first
  // tile a warp ran 233 instructions for 2^16 floats, against 95 in a bare one-tile kernel (ncu).
  const uint64_t full_tiles = p.plan.vectors / kTile;
  const bool first_tile_full = blockIdx.x < full_tiles;
  uint64_t tile = blockIdx.x;
  if constexpr (Bulk && bulk::kCompiled && kVec > 1) {
    static_assert(InFlight == reduce_policy::wide_vectors_in_flight, "the bulk kernel has the wide tiles");
    // The block's full tiles through shared memory (every thread of the block or none: the
    // condition is the block's own).
    extern __shared__ __align__(128) unsigned char bulk_stages[];  // kBulkSharedBytes
    __shared__ uint64_t stage_full[reduce_policy::bulk_stages];
    if (first_tile_full) {
      const auto* body = reinterpret_cast<const vec_t*>(p.in + p.plan.head);
      tile = bulk::fold_tiles<kThreads, kInFlight, reduce_policy::bulk_stages>(
          body, tile, gridDim.x, full_tiles, bulk_stages, stage_full, [&](const vec_t(&v)[kInFlight], uint64_t t) {
#pragma unroll
            for (unsigned k = 0; k < kInFlight; ++k) fold_item(v[k], t * kTile + threadIdx.x + k * kThreads);
          });
    }
  } else if (first_tile_full) {
    fold_full_tile(tile);
    for (tile += gridDim.x; tile < full_tiles; tile += gridDim.x) fold_full_tile(tile);
  }
  if (tile == full_tiles && tile * kTile < p.plan.vectors) fold_guarded_tile(tile);
  if (has_head) f.add(lift(head_item, threadIdx.x));
  if (has_tail) f.add(lift(tail_item, tail_start + threadIdx.x));

  // Threads holding a value form a prefix of the block: those with a vector in its first tile
  // (tile b; see plan_reduce), all of them where that tile is full. Count them.
  int valid = int(kThreads);
  if (!first_tile_full) {
    const uint64_t first_vector = uint64_t(blockIdx.x) * kTile;
    valid = p.plan.vectors > first_vector ? int(p.plan.vectors - first_vector) : 0;  // < kTile here
    valid = min(valid, int(kThreads));
    if (blockIdx.x == 0) valid = max(valid, int(max(head, tail)));
  }

  // The combiner (the grid's last block; see kPartialWords) issues its first poll of the
  // partials before its own block reduction, so that partials already stored cost it no round
  // trip after the reduction. Thread t polls block t (warp 0 alone up to 32 blocks).
  const tagged_partials<Acc> partials{p.temp + 1, gridDim.x, launch_tag(epoch, p.salt)};
  unsigned long long first_seen[tagged_partials<Acc>::kWords] = {};
  const bool polls_first = combiner && threadIdx.x < gridDim.x && threadIdx.x != blockIdx.x;
  if (polls_first) partials.load(threadIdx.x, first_seen);

  // valid is the same for the whole block (0 only for n = 0, in one block), so every thread or
  // none reaches the barriers inside. A block whose threads all hold a value skips the lane tests.
  const Acc block_total = first_tile_full ? block::reduce_all<kThreads>(f.acc, p.op, storage)
                          : valid         ? block::reduce<kThreads>(f.acc, p.op, valid, storage)
                                          : Acc{};
  if (gridDim.x == 1) {  // one block: no partials
    if (threadIdx.x == 0) *p.out = finish(block_total, valid > 0);
    return;
  }
  // The combine (see kPartialWords): the last block polls the others' tagged partials.
  if (!combiner) {
    if (threadIdx.x == 0) partials.store(blockIdx.x, block_total);
    return;
  }
  // By the combiner's thread 0, once it holds the total: every block has read the epoch by then.
  const auto write_result = [&](const Acc& total) {
    *p.out = finish(total, true);
    epoch_word(p.temp).store(epoch + 1, cuda::memory_order_relaxed);
  };
  // Up to 32 blocks of partials of up to 8 bytes, warp 0 alone finishes: thread 0 holds the
  // block's partial, so no barrier is needed to pass the combiner its own partial (a shuffle) or
  // to let the other warps leave. Lane b polls block b, and the warp reduction folds the
  // partials in the order the block reduction below would: bitwise the same. (H100, one
  // process: 0.3-0.45 µs faster than the block-wide combine for 6-32 blocks of doubles, floats
  // as fast or faster; bench/NOTES.md.)
  if (sizeof(Acc) <= 8 && gridDim.x <= 32) {
    if (threadIdx.x >= 32) return;
    const Acc own = warp::shuffle_idx(block_total, 0);
    while (polls_first && !partials.reload_stale(threadIdx.x, first_seen)) {
    }
    // The lanes leave the poll at different times, as their partials land. Reconverged here,
    // the warp's shuffles below take their fast path; without it a diverged warp took the slow
    // one, 0.25-0.5 µs from the end of the poll to the result (H100, globaltimer stamps: 512 ns
    // for 8-32 blocks of floats, then 0), and up to 1 µs in the block-wide combine below.
    __syncwarp();
    Acc partial{};
    if (threadIdx.x < gridDim.x) partial = threadIdx.x == blockIdx.x ? own : partials.value(first_seen);
    // As few shuffle steps as the grid needs (a uniform branch; bitwise the same result).
    const int blocks = int(gridDim.x);
    const Acc total = blocks <= 8    ? warp::reduce_down_partial<8>(partial, p.op, blocks)
                      : blocks <= 16 ? warp::reduce_down_partial<16>(partial, p.op, blocks)
                                     : warp::reduce_down_partial<32>(partial, p.op, blocks);
    if (threadIdx.x == 0) write_result(total);
    return;
  }
  // Thread t folds the partials of blocks t, t + kThreads, … in order (the combiner's own from
  // shared memory), polling up to kInFlightPartials of them at a time, every stale word of them
  // reloaded in each round: a grid of ~1000 blocks costs one L2 round trip here, not four in a
  // row (0.7 µs at 2^22 floats on an H200).
  constexpr unsigned kInFlightPartials = 4;
  __shared__ alignas(Acc) unsigned char combiner_own_bytes[sizeof(Acc)];  // raw: Acc may have a constructor
  if (threadIdx.x == 0) memcpy(combiner_own_bytes, &block_total, sizeof(Acc));
  __syncthreads();  // also: every thread is past the block reduction, so `storage` may be reused
  Acc combiner_own;
  memcpy(&combiner_own, combiner_own_bytes, sizeof(Acc));
  fold<Acc, Op> g{Acc{}, false, p.op};
  for (unsigned base = 0; base < gridDim.x; base += kThreads * kInFlightPartials) {
    unsigned long long seen[kInFlightPartials][tagged_partials<Acc>::kWords];
    const auto block_of = [&](unsigned k) { return base + k * kThreads + threadIdx.x; };
    const auto polled = [&](unsigned k) { return block_of(k) < gridDim.x && block_of(k) != blockIdx.x; };
#pragma unroll
    for (unsigned k = 0; k < kInFlightPartials; ++k) {
      if (k == 0 && base == 0) {
        memcpy(seen[0], first_seen, sizeof(first_seen));
      } else if (polled(k)) {
        partials.load(block_of(k), seen[k]);
      }
    }
    for (bool waiting = true; waiting;) {
      waiting = false;
#pragma unroll
      for (unsigned k = 0; k < kInFlightPartials; ++k)
        if (polled(k) && !partials.reload_stale(block_of(k), seen[k])) waiting = true;
    }
    __syncwarp();  // as in the warp-0 combine above: the lanes reconverge before the shuffles
#pragma unroll
    for (unsigned k = 0; k < kInFlightPartials; ++k) {
      if (block_of(k) < gridDim.x) g.add(block_of(k) == blockIdx.x ? combiner_own : partials.value(seen[k]));
    }
  }
  const Acc total = block::reduce<kThreads>(g.acc, p.op, int(min(kThreads, gridDim.x)), storage);
  if (threadIdx.x == 0) write_result(total);
}

}  // namespace warpfold::detail
