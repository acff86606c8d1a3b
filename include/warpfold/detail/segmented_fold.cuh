#pragma once
// The building blocks of the segmented and axis reductions: one segment seen as a range (its
// elements one by one, or its items as the tile loader reads them), a lane group's, a warp's and
// a block's fold of it, the tagged counters that let blocks share work without cleared memory,
// and the fold of a long segment's piece partials.
//
// Every fold here has a fixed order that depends on the segment's length and alignment (and, for
// a long segment's pieces, the device's grid) only: never on which block ran which piece.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/thread_fold.cuh>
#include <warpfold/detail/tile_loader.cuh>
#include <warpfold/warp/warp_reduce.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

// Elements a lane of the columns and single-elements kernels reads at once: a vector of up to 16
// bytes of up to 4 elements (arithmetic types up to 8 bytes; more would cost more accumulators
// than loads saved), else 1.
template <class T>
inline constexpr unsigned column_vector_elements =
    (std::is_arithmetic_v<T> && sizeof(T) <= 8) ? (16 / sizeof(T) < 4 ? 16 / sizeof(T) : 4) : 1;

// Items a thread (or lane) keeps in flight per tile: kSegmentInFlight 16-byte vectors, or, for a
// strided range, up to 4 elements per such vector (column_vector_elements: 16 floats or 8 doubles,
// as many as the vectors hold; 16 of narrower types), so that a strided row keeps about as many
// loads in flight as a contiguous one, in a tile of as many 4- and 8-byte elements.
template <class Items>
inline constexpr unsigned segment_items_in_flight =
    kSegmentInFlight * (Items::kElements == 1 ? column_vector_elements<typename Items::element> : 1);

template <class T, unsigned V>
struct alignas(sizeof(T) * V) column_vector {
  T e[V];
};

// --- segments as ranges ------------------------------------------------------------------------

// Where a segment lies: `base` elements from d_in (element offsets may be negative for views with
// negative strides), `len` elements.
struct segment_slot {
  int64_t base;
  uint64_t len;
};

// The scalar elements of a range around its items: `head` from element 0, `tail` from tail_start.
struct scalar_ends_of {
  unsigned head, tail;
  uint64_t tail_start;
};

// A strided range's elements as items of one element each, for tile_loader.
template <class T>
struct strided_items {
  using element = T;
  static constexpr unsigned kElements = 1;
  using item = T;
  const T* in;
  int64_t stride;
  uint64_t vectors;  // items (elements): tile_loader's name for the body's length
  __device__ __forceinline__ item load(uint64_t i) const { return in[int64_t(i) * stride]; }
  __device__ __forceinline__ uint64_t element_index(uint64_t i, unsigned) const { return i; }
  template <class Visit>
  __device__ __forceinline__ static void for_each(const item& v, uint64_t first_index, Visit&& visit) {
    visit(v, first_index);
  }
};

// A segment of contiguous elements: 16-byte vectors between a scalar head and tail.
template <class T>
struct contiguous_segment {
  using element = T;
  using items_t = range_items<T>;
  static constexpr unsigned kItemElements = items_t::kElements;
  const T* p;
  uint64_t len;

  __device__ __forceinline__ T element_at(uint64_t j) const { return p[j]; }
  __device__ __forceinline__ items_t items() const {
    const range_split r = split_range(len, reinterpret_cast<uintptr_t>(p), sizeof(T), vector_elements<T>);
    return {p, r.head, r.vectors};
  }
  __device__ __forceinline__ scalar_ends_of ends(const items_t& items) const {
    const uint64_t tail_start = items.head + items.vectors * items_t::kElements;
    return {unsigned(items.head), unsigned(len - tail_start), tail_start};
  }
};

// A segment of elements `stride` apart: every element an item, no head or tail.
template <class T>
struct strided_segment {
  using element = T;
  using items_t = strided_items<T>;
  static constexpr unsigned kItemElements = 1;
  const T* p;
  int64_t stride;
  uint64_t len;

  __device__ __forceinline__ T element_at(uint64_t j) const { return p[int64_t(j) * stride]; }
  __device__ __forceinline__ items_t items() const { return {p, stride, len}; }
  __device__ __forceinline__ scalar_ends_of ends(const items_t&) const { return {0, 0, len}; }
};

// --- folds of one segment -----------------------------------------------------------------------

// Lanes [0, valid) of each aligned group of `lanes` lanes (a power of two up to 32, the same in
// the whole warp) hold values; the group's lane 0 gets their fold, halving as warp_reduce does.
// Every lane of the warp calls it.
template <class Acc, class Op>
__device__ __forceinline__ Acc reduce_in_group(Acc value, Op op, unsigned lanes, unsigned lane_in_group,
                                               unsigned valid) {
  for (unsigned offset = lanes / 2; offset > 0; offset /= 2) {
    const Acc other = warp::shuffle_down(value, int(offset));
    if (lane_in_group + offset < valid) value = op(value, other);
  }
  return value;
}

// Lanes `offset` apart swap halves of two values, each of another segment: a lane keeps the one
// its `upper` bit picks (low for the lower lane, high for the upper) and receives its partner's
// value of that segment. The two fold lower lane first, as reduce_in_group folds them, so every
// segment's lanes end with reduce_in_group's bits (where every lane of the group holds a value).
template <class Acc, class Op>
__device__ __forceinline__ Acc exchange_halves(const Acc& low, const Acc& high, Op op, int offset, bool upper) {
  const Acc sent = upper ? Acc(low) : Acc(high);  // values, not a selected address: registers stay
  const Acc mine = upper ? Acc(high) : Acc(low);
  const Acc got = warp::shuffle_xor(sent, offset);
  return upper ? op(got, mine) : op(mine, got);
}

// Lanes `offset` apart fold one value, lower lane first: both partners get reduce_in_group's bits.
template <class Acc, class Op>
__device__ __forceinline__ Acc exchange_same(const Acc& value, Op op, int offset, bool upper) {
  const Acc got = warp::shuffle_xor(value, offset);
  return upper ? op(got, value) : op(value, got);
}

// Lanes `offset` apart, then offset / 2, … 1 apart, fold one value each (exchange_same): from a
// width of 2·offset down, the bits of reduce_in_group where every lane holds a value.
template <class Acc, class Op>
__device__ __forceinline__ Acc fold_lanes_below(Acc value, Op op, unsigned offset, unsigned lane_in_group) {
  for (; offset > 0; offset /= 2) value = exchange_same(value, op, int(offset), (lane_in_group & offset) != 0);
  return value;
}

// A warp's fold of one segment into each lane's f: lane l takes items l, l + 32, … (a tile's
// share of them in flight: segment_items_in_flight), then head element l and tail element l.
// Returns how many lanes hold a value (a prefix of the warp). Every lane of the warp calls it.
template <class View, class Fold>
__device__ __forceinline__ unsigned fold_segment_in_warp(const View& seg, unsigned lane, Fold& f) {
  const auto items = seg.items();
  using item = typename View::items_t::item;
  constexpr unsigned kInFlight = segment_items_in_flight<typename View::items_t>;
  for (uint64_t first = 0; first < items.vectors; first += 32 * kInFlight) {
    item v[kInFlight];
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) {
      const uint64_t i = first + lane + 32 * k;
      v[k] = items.load(i < items.vectors ? i : items.vectors - 1);  // loads go out together
    }
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) {
      const uint64_t i = first + lane + 32 * k;
      if (i < items.vectors) f.add_item(items, v[k], i);
    }
  }
  const scalar_ends_of e = seg.ends(items);
  if (lane < e.head) f.add_element(seg.element_at(lane), lane);
  if (lane < e.tail) f.add_element(seg.element_at(e.tail_start + lane), e.tail_start + lane);
  uint64_t holding = items.vectors > e.head ? items.vectors : e.head;
  holding = holding > e.tail ? holding : e.tail;
  return unsigned(holding < 32 ? holding : 32);
}

// A block's fold of one segment's body tiles from, from + step, … into each thread's f (thread
// t's items t, t + threads, … of each), the partial last tile where the sequence reaches it, then,
// with `ends`, the scalar head and tail. Every thread of the block calls it.
template <class View, class Fold>
__device__ __forceinline__ void fold_tiles_from(const View& seg, const typename View::items_t& items, uint64_t from,
                                                uint64_t step, bool ends, Fold& f) {
  constexpr unsigned kInFlight = segment_items_in_flight<typename View::items_t>;
  using loader_t = tile_loader<typename View::element, kSegmentThreads, kInFlight, typename View::items_t>;
  using item = typename loader_t::item;
  const loader_t loader{items};
  const uint64_t full_tiles = loader.full_tiles();
  uint64_t tile = from;
  for (; tile < full_tiles; tile += step) {
    item v[kInFlight];
    loader.load_full(tile, v);
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) f.add_item(items, v[k], loader.item_of(tile, k));
  }
  if (tile * loader_t::kTile < items.vectors) {  // only where the sequence reached full_tiles
    const unsigned in_tile = loader.items_in(tile);
    item v[kInFlight];
    loader.load_partial_in_tile(tile, v);
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k)
      if (threadIdx.x + k * kSegmentThreads < in_tile) f.add_item(items, v[k], loader.item_of(tile, k));
  }
  if (ends) {
    const scalar_ends_of e = seg.ends(items);
    if (threadIdx.x < e.head) f.add_element(seg.element_at(threadIdx.x), threadIdx.x);
    if (threadIdx.x < e.tail) f.add_element(seg.element_at(e.tail_start + threadIdx.x), e.tail_start + threadIdx.x);
  }
}

// A block's fold of piece `piece` of `pieces` of one segment into each thread's f: the body's
// tiles piece, piece + pieces, … (as reduce's block b reads tiles b, b + grid, …), then for piece
// 0 the scalar head and tail. Every thread of the block calls it.
template <class View, class Fold>
__device__ __forceinline__ void fold_piece(const View& seg, const typename View::items_t& items, uint64_t piece,
                                           uint64_t pieces, Fold& f) {
  fold_tiles_from(seg, items, piece, pieces, piece == 0, f);
}

// A one-piece segment's first full tile (body tile 0) into v as load_full gives it, where its
// first Staged items per thread were copied into shared memory (`stage`, Staged · threads items,
// completing on `barrier` with this parity) and the rest come from memory, loaded before the
// wait. Every thread of the block calls it.
template <unsigned Staged, class Items, unsigned InFlight>
__device__ __forceinline__ void first_tile_from_stage(const Items& items, const typename Items::item* stage,
                                                      uint64_t* barrier, unsigned parity,
                                                      typename Items::item (&v)[InFlight]) {
  static_assert(Staged <= InFlight, "the stage holds part of one tile");
#pragma unroll
  for (unsigned k = Staged; k < InFlight; ++k) v[k] = items.load(threadIdx.x + k * kSegmentThreads);
  bulk::wait(barrier, parity);
#pragma unroll
  for (unsigned k = 0; k < Staged; ++k) v[k] = stage[threadIdx.x + k * kSegmentThreads];
}

// The block's total of its threads' folds, in thread 0; `valid` (every thread) is how many hold a
// value (a prefix: fold_piece's first tile is full or the body's last, and head and tail start at
// thread 0). Its barrier also ends the previous use of `storage`.
template <class Acc, class Op, class Fold>
__device__ __forceinline__ Acc block_total(const Fold& f, Op op, block::reduce_storage<Acc, kSegmentThreads>& storage,
                                           int& valid) {
  valid = __syncthreads_count(f.has);
  return valid > 0 ? block::reduce<kSegmentThreads>(f.acc, op, valid, storage) : Acc{};
}

// --- a second kernel launched before the first ends -------------------------------------------

// Lets a kernel launched after this one as a programmatic dependent (launch_kernel's `dependent`)
// start its blocks, in any free slot, once every block of this grid has started, instead of
// after the whole grid and a launch. A no-op where nothing is launched so, and before compute
// capability 9.0.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Waits until the grid before this one on the stream has ended and its writes are visible: what a
// programmatic dependent does before it reads or writes anything that grid touches. Returns at
// once for a kernel launched plainly.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// --- sharing work through temp storage ---------------------------------------------------------

// The status word of temp storage's header (word 1; combine.cuh's layout, which
// last_combine_status reads): cleared by block 0 at a launch's start, set when a wait of this
// launch ends at its bound.
__device__ __forceinline__ void clear_stall_status(unsigned long long* temp) {
  device_word(temp[1]).store(0, cuda::memory_order_relaxed);
}
__device__ __forceinline__ void record_stall(unsigned long long* temp) {
  const unsigned long long epoch = device_word(temp[0]).load(cuda::memory_order_relaxed);
  device_word(temp[1]).store(kStalledCombine | ((epoch - 1) & ~kStalledCombine), cuda::memory_order_relaxed);
}

// Whether a wait of this launch has ended at its bound (record_stall's mark).
__device__ __forceinline__ bool stall_recorded(unsigned long long* temp) {
  return (device_word(temp[1]).load(cuda::memory_order_relaxed) & kStalledCombine) != 0;
}

// A counter in one 64-bit word: the count in the low half, the call's tag in the high half. A word
// another call left counts as 0, so temp storage needs no clearing (combine.cuh says why tags are
// unique per call). Adds `by` and returns the count before. Only the first adds of a call meet a
// stale tag and install it by compare-and-swap; once it is there, an add is a plain atomic add,
// which the L2 serves without the retries that make a contended compare-and-swap loop serial.
__device__ __forceinline__ uint32_t tagged_add(unsigned long long* word, unsigned tag, uint32_t by) {
  device_word w(*word);
  unsigned long long seen = w.load(cuda::memory_order_relaxed);
  for (;;) {
    if (unsigned(seen >> 32) == tag) return uint32_t(w.fetch_add(by, cuda::memory_order_acq_rel));
    const unsigned long long installed = (static_cast<unsigned long long>(tag) << 32) | by;
    if (w.compare_exchange_weak(seen, installed, cuda::memory_order_acq_rel, cuda::memory_order_relaxed)) return 0;
  }
}

// tagged_add for a word known to carry this call's tag (an earlier add of the caller's, or a
// publisher that installed it): one atomic add, no check. An unused answer costs no wait.
__device__ __forceinline__ uint32_t tagged_add_installed(unsigned long long* word, uint32_t by,
                                                         cuda::memory_order order = cuda::memory_order_acq_rel) {
  return uint32_t(device_word(*word).fetch_add(by, order));
}

// A counter word holding count 0 under this call's tag.
__device__ __forceinline__ unsigned long long tagged_zero(unsigned tag) { return static_cast<unsigned long long>(tag) << 32; }

__device__ __forceinline__ uint32_t tagged_count(unsigned long long* word, unsigned tag) {
  const unsigned long long seen = device_word(*word).load(cuda::memory_order_acquire);
  return unsigned(seen >> 32) == tag ? uint32_t(seen) : 0u;
}

// The fold of `count` tagged partials: thread t folds partials t, t + threads, … in order (waiting
// for each, bounded), then the block reduces the threads' folds; thread 0 gets the total. The
// order of combine.cuh's finish_in_block, and of a block that folds the pieces itself
// (segments_kernel's own_long_segment). `stalled` (every thread): a partial never came.
template <class Acc, class Op>
__device__ __forceinline__ Acc fold_tagged_partials(const tagged_partials<Acc>& parts, uint32_t count, Op op,
                                                    block::reduce_storage<Acc, kSegmentThreads>& storage,
                                                    unsigned long long timeout_ns, bool& stalled) {
  thread_fold<Acc, Op, no_form> g{Acc{}, false, op};
  bounded_wait wait{timeout_ns};
  bool gave_up = false;
  for (uint32_t b = threadIdx.x; b < count; b += kSegmentThreads) {
    unsigned long long seen[kPartialWords<Acc>];
    parts.load(b, seen);
    while (!gave_up && !parts.reload_stale(b, seen)) gave_up = !wait.again();
    g.add(parts.value(seen));
  }
  stalled = __syncthreads_or(gave_up);
  return block::reduce<kSegmentThreads>(g.acc, op, int(count < kSegmentThreads ? count : kSegmentThreads), storage);
}

}  // namespace warpfold::detail
