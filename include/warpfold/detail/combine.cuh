#pragma once
// The grid's combine: every block but the last stores its partial in temp storage as tagged
// words, and the grid's last block (the combiner) polls them and folds them in block order.
//
// Temp storage holds an epoch word, a status word, then the partials. A partial travels as
// kPartialWords<Acc> 64-bit words, word-major (word w of block b at w * gridDim.x + b, so that
// the combiner's loads coalesce). Each word holds 32 bits of the partial in its low half and the
// launch's 32-bit tag in its high half. A 64-bit store is single-copy atomic, so a word that
// shows the tag was stored whole by a launch with that tag; the combiner takes a partial once
// every one of its words shows it.
//
// Why no earlier launch's word can show this launch's tag (docs/design.md, "The combine"):
// - A call outside a graph capture tags with its own number, from a process-wide counter (31
//   bits of it, XOR a random per-process salt), so no two calls of this process within 2^31
//   calls of each other share a tag, whatever the temp storage holds: copied, restored, reused at
//   another offset or partly overwritten, its words carry other calls' tags or other bytes.
// - A captured call is replayed with its arguments, tag included, frozen: its capture adds a
//   memset node that zeroes the launch's partial words before each replay (the dispatch), and its
//   tag has the top bit set (so it is never zero and never an uncaptured call's) above 31 bits of
//   its number. No earlier replay's word is left to match, whatever the temp storage held: its
//   memory reused by the graph's own allocations between replays, restored, or set.
// - Bytes that no warpfold launch wrote match a tag with probability 2^-32 per word.
//
// The combiner waits for the other blocks of its own grid only, never the reverse. Blocks of a
// one-dimensional grid are dispatched in index order, so when the last one runs, all others have
// started and finish without waiting: no deadlock. (The grid never exceeds the kernel's resident
// capacity on the device, either.) The wait is bounded: a misuse (two reduces sharing one temp
// storage at once, temp storage freed or overwritten during the reduce) would leave a partial
// that never arrives. Past the bound the combiner writes a result that cannot pass for a number
// and records the failure in the status word (warpfold::last_combine_status reads it).

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/reduce_policy.hpp>
#include <warpfold/detail/thread_fold.cuh>
#include <warpfold/warp/warp_reduce.cuh>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace warpfold::detail {

template <class Acc>
inline constexpr unsigned kPartialWords = sizeof(Acc) <= 8 ? 2u : unsigned((sizeof(Acc) + 3) / 4);

// The words of temp storage before the partials: the epoch, then the status.
inline constexpr unsigned kHeaderWords = 2;

// Temp storage: the header, then the partials of up to `blocks` blocks.
template <class Acc>
constexpr size_t tagged_partial_bytes(unsigned blocks) {
  return (kHeaderWords + size_t(blocks) * kPartialWords<Acc>) * sizeof(unsigned long long);
}

// The status word after a combine that gave up: this flag with the epoch the reduce found.
inline constexpr unsigned long long kStalledCombine = 1ull << 63;

using device_word = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

// splitmix64's finaliser: every bit of x reaches every bit of the result.
__host__ __device__ constexpr unsigned long long mix64(unsigned long long x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The host's key of one call: the low 32 bits are the tag, from the call's number (31 bits) XOR
// the salt's, with the top bit set for a captured call. (The high 32 bits are the mask of the
// epoch's bits the tag takes: none today; the epoch serves the status word.)
__host__ __device__ constexpr unsigned long long call_key(unsigned long long call, unsigned long long salt,
                                                          bool captured) {
  return (captured ? 0x80000000u : 0u) | (unsigned(call & 0x7fffffff) ^ (unsigned(salt) & 0x7fffffffu));
}

// The tag of the launch with `key` that found `epoch` in its temp storage.
__device__ __forceinline__ unsigned launch_tag(unsigned long long key, unsigned long long epoch) {
  return unsigned(key) ^ (unsigned(key >> 32) & unsigned(epoch));
}

// A result that cannot pass for a number, written by a combine that gave up: NaN where Out has
// one, every byte 0xff otherwise (-1, the type's largest unsigned value, index 2^64 - 1).
template <class Out>
__device__ __forceinline__ Out stalled_result() {
  Out out;
  if constexpr (std::is_floating_point_v<Out>) {
    out = Out(NAN);
  } else if constexpr (std::is_same_v<Out, __half>) {
    out = __ushort_as_half(0x7e00);
  } else if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
    out = __ushort_as_bfloat16(0x7fc0);
  } else {
    memset(&out, 0xff, sizeof(Out));
  }
  return out;
}

// A bounded wait for one polling thread: it polls flat out for a while, then sleeps between
// polls (doubling the nap up to a bound, so that a partial that lands late is still seen soon),
// and gives up after `timeout_ns` on the GPU's clock. A slow but legitimate block (a busy GPU,
// other kernels on most SMs) is seconds from that bound.
struct bounded_wait {
  static constexpr unsigned long long kSpinNs = 20000;
  static constexpr unsigned kFirstNapNs = 256, kLongestNapNs = 65536;
  unsigned long long timeout_ns;
  unsigned long long start = 0;
  unsigned nap = kFirstNapNs;

  __device__ static unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  // Whether to poll again (false once the bound has passed), after a pause where one is due.
  __device__ __forceinline__ bool again() {
    const unsigned long long t = now();
    if (start == 0) start = t;
    const unsigned long long waited = t - start;
    if (waited > timeout_ns) return false;
    if (waited > kSpinNs) {
      __nanosleep(nap);
      nap = nap < kLongestNapNs ? 2 * nap : nap;
    }
    return true;
  }
};

// How many partials of Acc one polling thread loads at once: the policy's words in flight.
template <class Acc>
WARPFOLD_HOST_DEVICE constexpr unsigned partials_in_flight() {
  constexpr unsigned words = compiled_policy().combine_words_in_flight;
  return words > kPartialWords<Acc> ? words / kPartialWords<Acc> : 1;
}

// The tagged partials of one launch in temp storage.
template <class Acc>
struct tagged_partials {
  static constexpr unsigned kWords = kPartialWords<Acc>;
  unsigned long long* words;  // kWords × gridDim.x, word-major
  unsigned blocks;
  unsigned tag;

  // Word w's high half: the tag, in every word.
  __device__ __forceinline__ unsigned long long tag_half(unsigned) const { return (unsigned long long)tag << 32; }
  __device__ __forceinline__ device_word word(unsigned b, unsigned w) const {
    return device_word(words[size_t(w) * blocks + b]);
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
  // A caller polling several partials reloads all their stale words before it waits on any: one
  // round trip per round, where waiting word by word would take one per word.
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
  // Waits until every word of the partials at slot_of(k), k < N where taken(k), carries the tag;
  // `seen` holds a first load of each. Each round reloads every stale word of them before it
  // waits, so a round costs one round trip however many are stale. False: `wait` gave up.
  template <unsigned N, class SlotOf, class Taken>
  __device__ __forceinline__ bool await_fresh(SlotOf slot_of, Taken taken, unsigned long long (&seen)[N][kWords],
                                              bounded_wait& wait) const {
    for (;;) {
      bool waiting = false;
#pragma unroll
      for (unsigned k = 0; k < N; ++k)
        if (taken(k) && !reload_stale(slot_of(k), seen[k])) waiting = true;
      if (!waiting) return true;
      if (!wait.again()) return false;
    }
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

// One launch's side of the combine, in the order a block meets it: enter (first thing in the
// kernel), before_block_reduce, then store_partial or finish.
template <class Acc, class Op, unsigned Threads>
struct grid_combine {
  static constexpr unsigned kWords = kPartialWords<Acc>;
  unsigned long long* temp;
  unsigned long long key;         // the call's (call_key)
  unsigned long long timeout_ns;  // the bound on the combiner's wait
  bool combiner;                  // the grid's last block, when there are several
  unsigned long long epoch = 0;
  tagged_partials<Acc> parts{};
  unsigned long long first_seen[kWords] = {};
  bool polls_first = false;

  // The epoch is read first, by the threads that use the tag (each block's thread 0, which stores
  // the partial, and the combiner): its round trip overlaps the body's loads. One thread per
  // block, since every block reads the same line.
  __device__ __forceinline__ static grid_combine enter(unsigned long long* temp, unsigned long long key,
                                                       unsigned long long timeout_ns) {
    grid_combine c{temp, key, timeout_ns, gridDim.x > 1 && blockIdx.x == gridDim.x - 1};
    if (gridDim.x > 1 && (threadIdx.x == 0 || c.combiner)) c.epoch = c.epoch_word().load(cuda::memory_order_relaxed);
    return c;
  }
  // Before the block reduction: the tag, so that its arithmetic overlaps the reduction, and the
  // combiner's first poll of the partials, so that partials already stored cost no round trip
  // after it (thread t polls block t).
  __device__ __forceinline__ void before_block_reduce() {
    parts = {temp + kHeaderWords, gridDim.x, launch_tag(key, epoch)};
    polls_first = combiner && threadIdx.x < gridDim.x && threadIdx.x != blockIdx.x;
    if (polls_first) parts.load(threadIdx.x, first_seen);
  }
  // Every block but the combiner: thread 0 stores the block's total.
  __device__ __forceinline__ void store_partial(const Acc& block_total) const {
    if (threadIdx.x == 0) parts.store(blockIdx.x, block_total);
  }
  // The combiner: folds every block's partial in block order and hands the total to
  // write(total) in thread 0, which then stores the next epoch (every block has read this one).
  // If a partial never arrives, it hands write_stalled() nothing to fold instead.
  template <class Write, class WriteStalled>
  __device__ __forceinline__ void finish(const Acc& block_total, Op op, block::reduce_storage<Acc, Threads>& storage,
                                         Write&& write, WriteStalled&& write_stalled) {
    constexpr unsigned kWarpCombineMaxBlocks = compiled_policy().warp_combine_max_blocks;
    const auto write_result = [&](const Acc& total, bool stalled) {
      if (stalled) {
#ifdef WARPFOLD_TRAP_ON_STALLED_COMBINE
        __trap();
#endif
        write_stalled();
        status_word().store(kStalledCombine | (epoch & ~kStalledCombine), cuda::memory_order_relaxed);
      } else {
        write(total);
      }
      epoch_word().store(epoch + 1, cuda::memory_order_relaxed);
    };
    if (sizeof(Acc) <= 8 && gridDim.x <= kWarpCombineMaxBlocks) {
      finish_in_warp(block_total, op, write_result);
    } else {
      finish_in_block(block_total, op, storage, write_result);
    }
  }

 private:
  __device__ __forceinline__ device_word epoch_word() const { return device_word(temp[0]); }
  __device__ __forceinline__ device_word status_word() const { return device_word(temp[1]); }

  // Up to 32 blocks of partials of up to 8 bytes: warp 0 alone finishes. Thread 0 holds the
  // block's partial, so no barrier is needed to pass the combiner its own partial (a shuffle) or
  // to let the other warps leave. Lane b polls block b, and the warp reduction folds the
  // partials in the order the block reduction would: bitwise the same.
  template <class WriteResult>
  __device__ __forceinline__ void finish_in_warp(const Acc& block_total, Op op, WriteResult& write_result) {
    if (threadIdx.x >= 32) return;
    const Acc own = warp::shuffle_idx(block_total, 0);
    bool stalled = false;
    bounded_wait wait{timeout_ns};
    while (polls_first && !parts.reload_stale(threadIdx.x, first_seen)) {
      if (!wait.again()) {
        stalled = true;
        break;
      }
    }
    // The lanes leave the poll at different times; reconverged, the warp's shuffles take their
    // fast path.
    __syncwarp();
    stalled = __any_sync(warp::kFullMask, stalled);
    Acc partial{};
    if (threadIdx.x < gridDim.x) partial = threadIdx.x == blockIdx.x ? own : parts.value(first_seen);
    // As few shuffle steps as the grid needs (a uniform branch; bitwise the same result).
    const int blocks = int(gridDim.x);
    const Acc total = blocks <= 8    ? warp::reduce_down_partial<8>(partial, op, blocks)
                      : blocks <= 16 ? warp::reduce_down_partial<16>(partial, op, blocks)
                                     : warp::reduce_down_partial<32>(partial, op, blocks);
    if (threadIdx.x == 0) write_result(total, stalled);
  }

  // Any grid: thread t folds the partials of blocks t, t + Threads, … in order (the combiner's
  // own from shared memory), polling several of them at a time (as many as fit the policy's
  // words in flight), every stale word of them reloaded in each round, so that a large grid costs
  // one L2 round trip per round, not one per partial.
  template <class WriteResult>
  __device__ __forceinline__ void finish_in_block(const Acc& block_total, Op op,
                                                  block::reduce_storage<Acc, Threads>& storage,
                                                  WriteResult& write_result) {
    constexpr unsigned kPollsInFlight = partials_in_flight<Acc>();
    __shared__ alignas(Acc) unsigned char combiner_own_bytes[sizeof(Acc)];  // raw: Acc may have a constructor
    __shared__ bool any_stalled;
    if (threadIdx.x == 0) {
      memcpy(combiner_own_bytes, &block_total, sizeof(Acc));
      any_stalled = false;
    }
    __syncthreads();  // also: every thread is past the block reduction, so `storage` may be reused
    Acc combiner_own;
    memcpy(&combiner_own, combiner_own_bytes, sizeof(Acc));
    thread_fold<Acc, Op, no_form> g{Acc{}, false, op};
    bounded_wait wait{timeout_ns};
    for (unsigned base = 0; base < gridDim.x; base += Threads * kPollsInFlight) {
      unsigned long long seen[kPollsInFlight][kWords];
      const auto block_of = [&](unsigned k) { return base + k * Threads + threadIdx.x; };
      const auto polled = [&](unsigned k) { return block_of(k) < gridDim.x && block_of(k) != blockIdx.x; };
#pragma unroll
      for (unsigned k = 0; k < kPollsInFlight; ++k) {
        if (k == 0 && base == 0) {
          memcpy(seen[0], first_seen, sizeof(first_seen));
        } else if (polled(k)) {
          parts.load(block_of(k), seen[k]);
        }
      }
      // any_stalled is read by thread 0 after the block reduction's barriers.
      if (!parts.await_fresh(block_of, polled, seen, wait)) any_stalled = true;
      __syncwarp();  // as in finish_in_warp: the lanes reconverge before the shuffles
#pragma unroll
      for (unsigned k = 0; k < kPollsInFlight; ++k) {
        if (block_of(k) < gridDim.x) g.add(block_of(k) == blockIdx.x ? combiner_own : parts.value(seen[k]));
      }
    }
    const Acc total = block::reduce<Threads>(g.acc, op, int(min(Threads, gridDim.x)), storage);
    if (threadIdx.x == 0) write_result(total, any_stalled);
  }
};

}  // namespace warpfold::detail
