#pragma once
// The single-pass device-wide reduce kernel.
//
// One launch does all the work: each block reduces its share of the input (tiles of 16 KiB, or
// 32 KiB in the wide kernel that inputs of 16-64 KiB and above 4 MiB take) in registers, writes
// one partial, and one block, found with an atomic ticket (the last to finish, or for polled
// partials the last to start), reduces the partials and writes the result. The fold order
// depends only on the grid, the block size, the kernel and n, so floating-point results are
// bitwise reproducible run to run on a device.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/ops.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace warpfold::detail {

// Tickets for "last block done", one per reduce in flight. They live in the module's global
// memory (zeroed when the module loads), so no temp-storage initialisation and no extra launch
// is needed; the last block of each reduce puts its ticket back to 0. Successive calls take
// successive slots, so up to kTicketSlots reduces may run concurrently on one device.
// 64 bits wide, so that a 32-bit integer sum can travel with its ticket (see packed_sum).
inline constexpr unsigned kTicketSlots = 512;
static __device__ unsigned long long g_tickets[kTicketSlots];

// Partials of at most 8 bytes from grids of at most kPolledMaxBlocks blocks skip the release
// fence and take their ticket on entry. Thread 0 of each block draws a ticket with a relaxed
// atomic before the block's loads, so its round trip overlaps them. At the end, every block but
// the one that drew the last ticket stores its partial as one or two 64-bit words, each
// (1 << 32) | 32 bits of the partial (single-copy atomic), in its ticket slot's row; the block
// with the last ticket is the combiner: its thread b polls block b's words until their flags are
// set (all of a partial's words are loaded before any is tested), clears them for the next reduce
// on the slot, and the partials are folded in block order, as the ticket path folds them, so
// results are bitwise the same. Up to 32 blocks, warp 0 does it alone, with shuffles and no
// barrier (H200, one process: 0.15-0.35 µs faster for 6-32 blocks of doubles, up to 0.2 µs for
// floats; loading both words of an 8-byte partial before testing them saved another 0.15-0.2
// µs). Waiting cannot deadlock: every other block drew its ticket earlier, so it has started and
// runs to its end without waiting.
// Against drawing the ticket after the block's reduction, this takes the ticket's round trip
// off the critical path: 0.1-0.4 us on an H200 for float and double sums from 2^14 to 2^20.
// The rows live in module memory (zeroed at load; 512 slots × 256 blocks × 16 bytes = 2 MiB),
// not in temp storage: a flag must never be found set by garbage. Up to 2^20 floats (2^19
// doubles) take at most 256 blocks of the narrow kernel, and the wide kernel, which inputs of more
// than 4 MiB take, at most 256 blocks up to 8 MiB.
inline constexpr unsigned kPolledMaxBlocks = 256;
inline constexpr unsigned kPolledMaxWords = 2;  // per partial: 32 bits of it per word
static __device__ unsigned long long g_polled_partials[kTicketSlots * kPolledMaxBlocks * kPolledMaxWords];

// A 32-bit integer sum rides on the ticket: each block adds (1 << 43) + its partial as an
// unsigned 32-bit value to the slot in one atomic, so the count of blocks done sits in the top
// 21 bits and the sum of the partials in the low 43 (2048 partials below 2^32 each stay below
// 2^43). The block that reads count = grid - 1 holds every partial in the value it got back:
// one atomic round trip instead of a partial store, a release, the ticket and the loads of
// the partials. Integer addition is exact in any order, so the result stays reproducible.
struct packed_sum {
  static constexpr unsigned count_shift = 43;
  static constexpr unsigned max_blocks = 1u << (count_shift - 32);
};

// The opt-in any-order combine (warpfold::any_order) for float and double sums: each block adds
// its partial to one accumulator per ticket slot with a floating-point atomic, then takes its
// ticket; the last block reads the total. The partials' order is the order the blocks finish
// in, so the last bits may change run to run; it saves the last block's load and reduction of
// every partial. Only for inputs up to kAtomicCombineMaxBytes: beyond, on an H200, it measured
// 1-14% slower than the ordered combine (2^23 doubles, 2^24 floats and up), so larger inputs
// take the ordered path even in any_order mode.
inline constexpr uint64_t kAtomicCombineMaxBytes = uint64_t(32) << 20;
static __device__ float g_any_order_float_sums[kTicketSlots];
static __device__ double g_any_order_double_sums[kTicketSlots];

template <class Acc>
__device__ __forceinline__ Acc* any_order_sum_slot(unsigned ticket) {
  if constexpr (std::is_same_v<Acc, float>) return g_any_order_float_sums + ticket;
  else return g_any_order_double_sums + ticket;
}

template <class Acc, class Op>
inline constexpr bool has_atomic_sum =
    std::is_same_v<Op, plus> && (std::is_same_v<Acc, float> || std::is_same_v<Acc, double>);

// Whether a reduce of Acc with Op takes the packed_sum combine: sums whose accumulator is a
// 32-bit integer (int8/int16/int32 data summed into int32, say).
template <class Acc, class Op>
inline constexpr bool uses_packed_sum =
    std::is_same_v<Op, plus> && (std::is_same_v<Acc, int32_t> || std::is_same_v<Acc, uint32_t>);

// Whether a reduce of Acc with Op polls its partials when its grid has 2 to kPolledMaxBlocks
// blocks and it does not take the atomic combine: accumulators of up to 8 bytes, but not the
// packed sums, which combine inside the ticket. The one definition for the plan (dispatch) and
// the kernel.
template <class Acc, class Op>
inline constexpr bool polls_partials = sizeof(Acc) <= 4 * kPolledMaxWords && std::is_trivially_copyable_v<Acc> &&
                                       !uses_packed_sum<Acc, Op>;

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

// Loads a value another SM wrote in this kernel: through L2 (ld.global.cg), never from this SM's
// L1, word by word for any trivially copyable type.
template <class T>
__device__ __forceinline__ T load_from_l2(const T* src) {
  T out;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned words[sizeof(T) / 4];
#pragma unroll
    for (unsigned w = 0; w < sizeof(T) / 4; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(src) + w);
    memcpy(&out, words, sizeof(T));
  } else {
    unsigned char bytes[sizeof(T)];
    const volatile unsigned char* b = reinterpret_cast<const volatile unsigned char*>(src);
#pragma unroll
    for (unsigned k = 0; k < sizeof(T); ++k) bytes[k] = b[k];
    memcpy(&out, bytes, sizeof(T));
  }
  return out;
}

// Stores a value for another SM to read, word by word like load_from_l2 reads it, so that the
// padding bytes of a struct accumulator (key_value<int8_t> has 7) are written too.
template <class T>
__device__ __forceinline__ void store_words(T* dst, const T& value) {
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (unsigned w = 0; w < sizeof(T) / 4; ++w) reinterpret_cast<unsigned*>(dst)[w] = words[w];
  } else {
    *dst = value;
  }
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
  Acc* partials;  // gridDim.x entries of temp storage
  Out* out;
  Acc init;
  Op op;
  Form form;
  unsigned ticket;
  bool atomic_combine = false;  // any_order float/double sums up to kAtomicCombineMaxBytes
};

// __launch_bounds__'s blocks per SM for a reduce of T into Acc (see reduce_policy::
// min_blocks_per_sm); 0 emits no bound, leaving the register count to ptxas.
template <class T, class Acc, unsigned InFlight>
inline constexpr unsigned min_blocks_per_sm =
    !has_register_budget<T, Acc>                   ? 0u
    : InFlight == reduce_policy::vectors_in_flight ? reduce_policy::min_blocks_per_sm
                                                   : reduce_policy::wide_min_blocks_per_sm;

// Params: a reduce_params. AnyOrder: take the any-order combine where has_atomic_sum<Acc, Op>
// (else it changes nothing). InFlight: vectors each thread loads per tile (reduce_policy::
// vectors_in_flight, or wide_vectors_in_flight for the wide kernel of has_wide_tiles reduces).
// The kernel's mangled name is kept short (one Params argument, one Form type in it, not a lift
// and a finish type apiece): the host pays for every character of it at every launch, about 1.6
// ns each on an H100 (bench/NOTES.md).
template <class Params, bool AnyOrder, unsigned InFlight>
__global__ void __launch_bounds__(reduce_policy::threads,
                                  (min_blocks_per_sm<typename Params::input, typename Params::accumulator, InFlight>))
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
  __shared__ bool is_last_block;

  // Polled combine: the ticket is drawn on entry (see kPolledMaxBlocks).
  constexpr bool kMayPoll = polls_partials<Acc, Op>;
  bool polled = false;
  unsigned arrival = 0;
  if constexpr (kMayPoll) {
    const bool atomic_combine = AnyOrder && has_atomic_sum<Acc, Op> && p.atomic_combine;
    polled = gridDim.x > 1 && gridDim.x <= kPolledMaxBlocks && !atomic_combine;
    // atomicAdd on the array itself (relaxed, device scope), not cuda::atomic_ref: the compiler
    // then knows the address is global and emits one ATOMG. Through atomic_ref it emitted a
    // generic-address ATOM, a branch on its predicate and a shared-memory CAS loop as fallback,
    // all ahead of the loads (H200, one process, three runs: 0.02-0.11 µs faster on average per
    // row from 2^13 to 2^21; bench/NOTES.md).
    if (polled && threadIdx.x == 0) arrival = unsigned(atomicAdd(&g_tickets[p.ticket], 1ull));
  }

  constexpr uint64_t kTile = uint64_t(kThreads) * kInFlight;  // one load per thread per vector in flight
  fold<Acc, Op> f{Acc{}, false, p.op};

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
  if (first_tile_full) {
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

  // valid is the same for the whole block (0 only for n = 0, in one block), so every thread or
  // none reaches the barriers inside. A block whose threads all hold a value skips the lane tests.
  const Acc block_total = first_tile_full ? block::reduce_all<kThreads>(f.acc, p.op, storage)
                          : valid         ? block::reduce<kThreads>(f.acc, p.op, valid, storage)
                                          : Acc{};
  if (gridDim.x == 1) {  // one block: no partials, no ticket
    if (threadIdx.x == 0) *p.out = finish(block_total, valid > 0);
    return;
  }
  if constexpr (uses_packed_sum<Acc, Op>) {
    if (threadIdx.x == 0) {
      // Relaxed (atomicAdd): the data travels inside the atomic, nothing else needs ordering.
      const unsigned long long mine = (1ull << packed_sum::count_shift) | static_cast<uint32_t>(block_total);
      const unsigned long long before = atomicAdd(&g_tickets[p.ticket], mine);
      if ((before >> packed_sum::count_shift) == gridDim.x - 1) {
        *p.out = finish(static_cast<Acc>(static_cast<uint32_t>(before + mine)), true);
        g_tickets[p.ticket] = 0;  // ready for the next reduce that draws this slot
      }
    }
    return;
  }
  if constexpr (AnyOrder && has_atomic_sum<Acc, Op>) {
    if (p.atomic_combine && threadIdx.x == 0) {
      atomicAdd(any_order_sum_slot<Acc>(p.ticket), block_total);
      // Release: this block's addition comes before its ticket; acquire: the last block sees
      // every addition whose ticket came before its own.
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ticket(g_tickets[p.ticket]);
      if (ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
        cuda::atomic_ref<Acc, cuda::thread_scope_device> sum(*any_order_sum_slot<Acc>(p.ticket));
        *p.out = finish(sum.exchange(Acc(0), cuda::memory_order_relaxed), true);
        ticket.store(0, cuda::memory_order_relaxed);  // both ready for the next reduce on this slot
      }
    }
    if (p.atomic_combine) return;
  }
  if constexpr (kMayPoll) {
    static_assert(kPolledMaxBlocks == kThreads, "the combiner holds one polled partial per thread");
    if (polled) {
      constexpr unsigned kWords = (sizeof(Acc) + 3) / 4;
      unsigned long long* row = g_polled_partials + size_t(p.ticket) * kPolledMaxBlocks * kPolledMaxWords;
      // Word w of block b's flagged partial in the slot's row.
      auto word_of = [&](unsigned b, unsigned w) {
        return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(row[b * kPolledMaxWords + w]);
      };
      // Polls one partial's flagged words, clears them for the next reduce on the slot. Every
      // word's first load goes out before any is tested: one round trip, not one per word.
      auto poll_partial = [&](unsigned b) {
        unsigned long long flagged[kWords];
#pragma unroll
        for (unsigned w = 0; w < kWords; ++w) flagged[w] = word_of(b, w).load(cuda::memory_order_relaxed);
        unsigned long long raw = 0;
#pragma unroll
        for (unsigned w = 0; w < kWords; ++w) {
          while ((flagged[w] >> 32) == 0) flagged[w] = word_of(b, w).load(cuda::memory_order_relaxed);
          word_of(b, w).store(0, cuda::memory_order_relaxed);
          raw |= (flagged[w] & 0xffffffffull) << (32 * w);
        }
        Acc partial{};
        memcpy(&partial, &raw, sizeof(Acc));
        return partial;
      };
      auto store_partial = [&](const Acc& total) {
        unsigned long long raw = 0;  // a scalar, not an array: stays in registers
        memcpy(&raw, &total, sizeof(Acc));
#pragma unroll
        for (unsigned w = 0; w < kWords; ++w)
          word_of(blockIdx.x, w).store((1ull << 32) | uint32_t(raw >> (32 * w)), cuda::memory_order_relaxed);
      };
      // Up to 32 blocks, warp 0 alone finishes: thread 0 holds the block's partial and its
      // ticket, so no barrier is needed to tell the block's other warps (they leave) or to pass
      // the combiner its own partial (a shuffle). Lane b polls block b, and the warp reduction
      // folds the partials in the order the block reduction below would: bitwise the same.
      if (gridDim.x <= 32) {
        if (threadIdx.x >= 32) return;
        const bool combiner = __shfl_sync(warp::kFullMask, arrival, 0) == gridDim.x - 1;
        if (!combiner) {
          if (threadIdx.x == 0) store_partial(block_total);
          return;
        }
        const Acc own = warp::shuffle_idx(block_total, 0);
        Acc partial{};
        if (threadIdx.x < gridDim.x) partial = threadIdx.x == blockIdx.x ? own : poll_partial(threadIdx.x);
        const Acc total = warp::reduce_down_partial(partial, p.op, int(gridDim.x));
        if (threadIdx.x == 0) {
          *p.out = finish(total, true);
          g_tickets[p.ticket] = 0;  // every block has drawn its ticket: ready for the next reduce
        }
        return;
      }
      __shared__ unsigned long long combiner_raw;  // the combiner's own partial, for its thread blockIdx.x
      if (threadIdx.x == 0) {
        is_last_block = arrival == gridDim.x - 1;
        if (is_last_block) memcpy(&combiner_raw, &block_total, sizeof(Acc));
        else store_partial(block_total);
      }
      __syncthreads();
      if (!is_last_block) return;
      Acc partial{};
      if (threadIdx.x < gridDim.x) {
        if (threadIdx.x == blockIdx.x) memcpy(&partial, &combiner_raw, sizeof(Acc));
        else partial = poll_partial(threadIdx.x);
      }
      __syncthreads();  // `storage` is reused
      const Acc total = block::reduce<kThreads>(partial, p.op, int(gridDim.x), storage);
      if (threadIdx.x == 0) {
        *p.out = finish(total, true);
        g_tickets[p.ticket] = 0;  // every block has drawn its ticket: ready for the next reduce
      }
      return;
    }
  }
  if (threadIdx.x == 0) {
    store_words(p.partials + blockIdx.x, block_total);
    // Release: this block's partial is visible before its ticket. Acquire: the last block sees
    // every partial whose ticket came before its own; the barrier below passes that on to the
    // block's other threads.
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ticket(g_tickets[p.ticket]);
    is_last_block = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;

  // Up to kPartialsPerThread loads per thread in flight at once: a grid of ~1000 blocks costs
  // one L2 round trip here, not four in a row (measured 0.7 us at 2^22 floats on an H200).
  constexpr unsigned kPartialsPerThread = 4;
  fold<Acc, Op> g{Acc{}, false, p.op};
  for (unsigned base = 0; base < gridDim.x; base += kThreads * kPartialsPerThread) {
    Acc v[kPartialsPerThread];
#pragma unroll
    for (unsigned k = 0; k < kPartialsPerThread; ++k) {
      const unsigned b = base + k * kThreads + threadIdx.x;
      if (b < gridDim.x) v[k] = load_from_l2(p.partials + b);
    }
#pragma unroll
    for (unsigned k = 0; k < kPartialsPerThread; ++k) {
      if (base + k * kThreads + threadIdx.x < gridDim.x) g.add(v[k]);
    }
  }
  __syncthreads();  // `storage` is reused
  const Acc total = block::reduce<kThreads>(g.acc, p.op, int(min(kThreads, gridDim.x)), storage);
  if (threadIdx.x == 0) {
    *p.out = finish(total, true);
    g_tickets[p.ticket] = 0;  // ready for the next reduce that draws this slot
  }
}

}  // namespace warpfold::detail
