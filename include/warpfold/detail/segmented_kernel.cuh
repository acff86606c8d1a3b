#pragma once
// The segments kernel: every segment of a segmented_reduce, or every row of a reduce_axis whose
// rows are not neighbours in memory, in one launch.
//
// Block b takes tiles b, b + grid, … of tile_segments consecutive segments. For each tile it
//  1. reads the tile's slots (offsets or row positions), writes init for the empty segments,
//     folds the shortest in the thread that read them, and files the others in shared memory by
//     class (segmented_plan.hpp);
//  2. publishes the long segments (those that cut into two or more pieces) in temp storage, where
//     any block may take their pieces;
//  3. reduces the lane- and warp-class segments, each warp those of its share of the tile;
//  4. reduces the block-class segments itself, and any long one the pool had no room for (the same
//     pieces, folded in the same order, so the bits do not depend on who took them). On compute
//     capability 9.0 and up, where items are 16-byte vectors, the first half of the first tile of
//     a one-piece segment of one full tile and less than another comes by a bulk copy issued while
//     the block reduces the segment before it, so that the two segments' round trips overlap.
// Then it helps: it waits until the tiles of the blocks before it are classified (never for a
// block after it, which may not have started), takes pieces of published long segments until none
// is left, and the block that delivers a segment's last piece folds its pieces' partials in piece
// order and writes the result.
//
// Rows whose lengths the host knows alike (a fixed-size call, a reduce_axis over rows) skip the
// tiles: warp-class rows take a warp each, and block-class rows' pieces go out block by block in
// row order (run_rows_by_warp, run_alike_rows), folded in the tiled path's order. So does a call
// of at most one tile's segments with offsets, which every block reads whole and plans alike
// (run_few_segments).
//
// Nothing is cleared before a call: counters and partials carry the call's tag (combine.cuh). A
// partial that never arrives (temp storage shared or freed during the call) ends the wait after
// the bound, writes stalled_result and records the stall for last_combine_status.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/segmented_sources.cuh>
#include <warpfold/warp/warp_reduce.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace warpfold::detail {

template <class Source, class Acc, class Out, class Op, class Form>
struct segments_params {
  using source_type = Source;
  using accumulator = Acc;
  using output = Out;
  using op_type = Op;
  using form_type = Form;
  Source source;
  uint64_t segments;
  uint64_t tiles;           // ceil(segments / tile_segments), below 2^32
  unsigned tile_segments;   // at most kMaxTileSegments
  unsigned max_pieces;      // pieces of one long segment at most: the device's grid
  uint64_t total_tiles;     // the call's tiles where it knows its total length, else ~0
  segments_layout layout;   // temp storage, in 8-byte words
  unsigned long long* temp;
  Out* out;
  Acc init;
  Op op;
  Form form;
  unsigned long long key;         // the call's (call_key): its low half tags every word
  unsigned long long timeout_ns;  // the bound on every wait
  uint64_t row_pieces = 0;        // pieces of every row where the rows are alike (alike_row_pieces), else 0
  bool rows_by_warp = false;      // every row warp-class (rows sources): a warp per row, no tiles
  bool after_flat = false;        // the flat kernel folded every segment of up to kFlatMax elements
};

// Segments of up to 8-byte elements keep kLaneBatch per lane group in flight; wider ones one.
template <class T>
inline constexpr unsigned lane_batch = sizeof(T) <= 8 ? kLaneBatch : 1;

template <class Params>
struct segments_block {
  using Source = typename Params::source_type;
  using T = typename Source::element;
  using View = typename Source::view;
  using Acc = typename Params::accumulator;
  using Out = typename Params::output;
  using Op = typename Params::op_type;
  using Form = typename Params::form_type;
  using fold_t = thread_fold<Acc, Op, Form>;
  static constexpr uint64_t kTileItems = uint64_t(kSegmentThreads) * segment_items_in_flight<typename View::items_t>;
  // Slots folded alone that are longer than one lane's worth are folded in two parts where the
  // first part's fold can wait in shared memory (the lists' space holds one per slot; registers
  // held across the filing spill): their first kHeadItems elements load with the one-lane class,
  // the rest after the filing. Else they load whole after the filing.
  static constexpr bool kSplitsAlone = alone_max_code(sizeof(T)) > 1 &&
                                       sizeof(Acc) <= sizeof(uint16_t) * (kLaneClasses - alone_max_code(sizeof(T)));
  static constexpr unsigned kHeadItems = kSplitsAlone ? kLaneItems : 0;
  static constexpr uint32_t kNoEntry = ~0u;
  // In own[]: the segment is one piece, so that reducing it needs no piece count.
  static constexpr unsigned kOnePiece = 1u << 31;
  // In own[]: a one-piece segment of one full tile and less than another, which the stage takes
  // (kStages): where a second full tile follows, the barrier after the stage's read holds every
  // warp's loads of it back, which costs more than the stage saves (design.md, SG66). Marked at
  // the segment's filing, so that thread 0 finds it with one read, ahead of its own loads.
  static constexpr unsigned kStageable = 1u << 30;
  __device__ static constexpr unsigned own_slot(unsigned own) { return own & ~(kOnePiece | kStageable); }
  static_assert(kMaxTileSegments <= kStageable, "a tile's slot indices stay below own[]'s marks");
  // Where items are 16-byte vectors of a range and bulk copies exist: the first kStagedItems items
  // per thread of the next kStageable own segment's first tile are copied into the stage meanwhile
  // (the rest of that tile loads as usual: a larger stage would grow shared memory for every call).
  using items_type = typename View::items_t;
  static constexpr bool kStages = bulk::kCompiled && std::is_same_v<items_type, range_items<T>> &&
                                  items_type::kElements > 1;
  static constexpr unsigned kStagedItems = 2;
  static constexpr unsigned kStageBytes =
      kStages ? unsigned(kSegmentThreads * kStagedItems * sizeof(typename items_type::item)) : 16u;

  struct shared_state {
    block::reduce_storage<Acc, kSegmentThreads> storage;
    int64_t base[kMaxTileSegments];  // the tile's slots
    uint64_t len[kMaxTileSegments];
    // Slots the block reduces whole, in any order (| kOnePiece, kStageable); in a call of few
    // segments, each segment's first unit (plan_units' exclusive sums).
    unsigned own[kMaxTileSegments];
    uint8_t code[kMaxTileSegments];  // the slots' codes for the lists (slot_code; 0: in none)
    union {
      // Each warp's slots per lane class with a list (none for those the threads fold alone).
      uint16_t listed[kSegmentWarps][kLaneClasses - alone_max_code(sizeof(T))][kMaxTileSegments / kSegmentWarps];
      // A call of few segments (no lists): per segment, the pieces of the split segments before it.
      uint32_t split_before[kMaxTileSegments];
      // While a tile is loaded (kSplitsAlone): per slot folded alone in two parts, the first's fold.
      alignas(Acc) unsigned char heads[kSplitsAlone ? kMaxTileSegments * sizeof(Acc) : 1];
      // Once the lists are done: the next own segment's first staged items (bulk copy).
      alignas(16) unsigned char stage[kStageBytes];
    };
    unsigned own_count;
    // The block's claim: entry (kNoEntry: none) and piece, with what the entry says of its
    // segment, read with the draw so that the piece's loads wait for no further round trip.
    struct {
      uint32_t entry, piece, pool_base, pieces;
      uint64_t segment;
      segment_slot slot;
    } claim;
    // Per warp, a count for a block-wide sum (the entries with pieces left its lanes saw, a
    // scan's warp total); aligned, so that the vector loads that read them read nothing beside
    // them (the claim, written meanwhile).
    alignas(16) unsigned warp_counts[kSegmentWarps];
    uint32_t scan[2];                // thread 0's reading of the spent hint and the entries published
    bool last;                       // thread 0: this block delivered a segment's last piece
    alignas(Acc) unsigned char piece_total[sizeof(Acc)];  // raw: Acc may have a constructor
    uint64_t stage_full;             // the stage's barrier: a phase per copy
    // Thread 0's record of the own segment k whose items the stage holds, in staged[k % 2] (own:
    // kNoStage where none), read by every thread as k starts, in place of its slot and items; two,
    // so that thread 0 records k + 1 while the others may still read k's.
    struct {
      unsigned own;
      items_type items;
      uint64_t len;
    } staged[2];
  };
  static constexpr unsigned kNoStage = ~0u;

  static_assert(sizeof(shared_state::heads) <= sizeof(shared_state::listed), "the heads take the lists' space");
  static_assert(!kStages || kStageBytes <= sizeof(shared_state::listed), "the stage takes the lists' space");

  const Params& p;
  shared_state& sh;
  unsigned tag;
  bool counted_a_tile = false;  // thread 0: the classification counter carries this call's tag
  unsigned stage_waits = 0;     // copies into the stage waited for (every thread alike)

  __device__ __forceinline__ fold_t new_fold() const { return fold_t{Acc{}, false, p.op, p.form}; }
  __device__ __forceinline__ void write(uint64_t s, const Acc& total, bool has) const {
    p.out[s] = p.form.finish(p.op, p.init, total, has);
  }
  __device__ __forceinline__ unsigned long long* word(uint64_t w) const { return p.temp + w; }
  __device__ __forceinline__ unsigned long long* entry(uint64_t e) const {
    return word(p.layout.entries_word + e * kEntryWords);
  }
  __device__ __forceinline__ unsigned long long published() const {
    return (static_cast<unsigned long long>(tag) << 32) | 1u;
  }
  __device__ __forceinline__ uint64_t pieces_of(const typename View::items_t& items) const {
    const uint64_t tiles = ceil_div(items.vectors, kTileItems);
    return pieces_for(items.vectors, kTileItems, p.max_pieces, work_tiles_of(p.total_tiles, p.segments, tiles));
  }

  // Whether the flat kernel before this one left a segment longer than kFlatMax (segmented_flat.cuh).
  __device__ __forceinline__ bool flat_left_work() const {
    return device_word(*word(kLeftoverWord)).load(cuda::memory_order_relaxed) == flat_word(tag, kFlatLeftLong);
  }

  // The status word belongs to the last call: a stall of this one is recorded after its bound.
  __device__ __forceinline__ void clear_status() const { clear_stall_status(p.temp); }
  __device__ __forceinline__ void write_stalled(uint64_t s) const {
    p.out[s] = stalled_result<Out>();
    record_stall(p.temp);
  }

  // Reserves pool pieces and an entry for long segment s at `slot` and publishes it (one thread).
  // False where the pool or the entries are full: the caller then reduces the segment itself.
  __device__ bool publish(uint64_t s, const segment_slot& slot, uint64_t pieces) const {
    const uint64_t pool = p.layout.pool_pieces;
    if (tagged_count(word(kPoolUsedWord), tag) + pieces > pool) return false;
    const uint32_t base = tagged_add(word(kPoolUsedWord), tag, uint32_t(pieces));
    if (base + pieces > pool) return false;
    if (tagged_count(word(kEntriesWord), tag) >= p.layout.max_entries) return false;
    const uint32_t e = tagged_add(word(kEntriesWord), tag, 1);
    if (e >= p.layout.max_entries) return false;
    unsigned long long* w = entry(e);
    // The spent-entries hint carries the tag before any entry is published (none can be spent
    // before entry 0 is): raising it is then one atomic max.
    if (e == 0) device_word(*word(kSpentEntriesWord)).store(tagged_zero(tag), cuda::memory_order_relaxed);
    device_word(w[3]).store(s, cuda::memory_order_relaxed);
    device_word(w[4]).store(base, cuda::memory_order_relaxed);
    device_word(w[5]).store(pieces, cuda::memory_order_relaxed);
    device_word(w[6]).store(uint64_t(slot.base), cuda::memory_order_relaxed);
    device_word(w[7]).store(slot.len, cuda::memory_order_relaxed);
    // The cursor and the arrivals carry the tag before anyone sees the entry: plain adds serve them.
    device_word(w[1]).store(tagged_zero(tag), cuda::memory_order_relaxed);
    device_word(w[2]).store(tagged_zero(tag), cuda::memory_order_relaxed);
    device_word(w[0]).store(published(), cuda::memory_order_release);
    return true;
  }

  static constexpr unsigned kPerThread = kMaxTileSegments / kSegmentThreads;  // slots a thread loads
  static_assert(kPerThread <= 4, "a slot's length where its thread folds it alone takes one byte of a word");
  static constexpr uint8_t kAloneMax = alone_max_code(sizeof(T));  // codes its thread folds alone
  static constexpr unsigned kAloneItems = alone_items(kAloneMax);
  static constexpr unsigned kListedClasses = kLaneClasses - kAloneMax;  // lane classes with lists

  // Step 1 and 2 of a tile: each thread reads its slots (j = thread + k·threads), writes init for
  // the empty ones, folds the shortest ones itself and records the others' class; then the long
  // ones are published and the others this block reduces whole listed. True where the tile has
  // lane- or warp-class segments left for the warps' lists.
  __device__ bool load_tile(uint64_t first, unsigned count) {
    __syncthreads();  // the previous tile is done with the slots and has read own_count
    if (threadIdx.x == 0) sh.own_count = 0;
    // Every slot's offsets are read before any is used: one round trip, not one per slot (the
    // loads are unconditional, at the tile's last slot where a thread has none, so they go out
    // together).
    typename Source::raw_slot raw[kPerThread];
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x + k * kSegmentThreads;
      raw[k] = p.source.read(first + (j < count ? j : count - 1));
    }
    // The slots a thread folds alone: the one-lane class whole and the longer ones' first part
    // (kSplitsAlone) with their loads in flight while it files the rest, the longer ones' rest
    // after, from the positions filed in shared memory.
    constexpr unsigned kInFlight = alone_in_flight(sizeof(T), kLaneItems, kPerThread);
    T v[kInFlight][kLaneItems];
    unsigned shortest = 0;  // byte k: slot k's elements loaded now, where it is folded alone
    unsigned longer = 0;    // bit k: slot k is longer than one lane's worth and folded alone
    unsigned whole = 0;     // bit k: slot k is block-class
    bool has_lists = false;
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x + k * kSegmentThreads;
      const segment_slot slot = p.source.slot_of(raw[k]);
      const uint8_t code = j < count ? file_slot(first, j, slot) : 0;
      // Loads in straight-line code, predicated: values loaded under a branch would be spilled.
      const unsigned len =
          kAloneMax == 0 ? 0u : code == 1 ? unsigned(slot.len) : code > 1 && code <= kAloneMax ? kHeadItems : 0u;
      if constexpr (kAloneMax >= 1) load_alone(slot, len, v[k % kInFlight]);
      shortest |= len << 8 * k;
      longer |= unsigned(code > 1 && code <= kAloneMax) << k;
      whole |= unsigned(code == kBlockClassCode) << k;
      has_lists |= code > kAloneMax && code != kBlockClassCode;
      if constexpr (kAloneMax >= 1) {
        if ((k + 1) % kInFlight == 0) fold_alone(first, k + 1 - kInFlight, v, shortest, longer);
      }
    }
    if constexpr (kAloneMax > 1) fold_longer_alone(first, longer);
    has_lists = __syncthreads_or(has_lists);
    bool any_published = false;
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      if ((whole >> k & 1u) == 0) continue;
      const unsigned j = threadIdx.x + k * kSegmentThreads;
      const segment_slot slot{sh.base[j], sh.len[j]};
      const auto items = p.source.view_of(slot).items();
      const uint64_t pieces = pieces_of(items);
      if (pieces >= 2 && publish(first + j, slot, pieces)) {
        any_published = true;
      } else {
        const bool stageable = kStages && pieces == 1 && items.vectors >= kTileItems && items.vectors < 2 * kTileItems;
        sh.own[atomicAdd(&sh.own_count, 1u)] = j | (pieces == 1 ? kOnePiece : 0u) | (stageable ? kStageable : 0u);
      }
    }
    any_published = __syncthreads_or(any_published);
    if (threadIdx.x == 0) count_classified_tile(any_published);
    return has_lists;
  }

  // Slot j of the tile: init written where it is empty; its code stored for the lists (0 where
  // no list needs it: empty, block-class, or short enough for its thread to fold alone), and its
  // position for the steps that read it from shared memory (every code but 0 and the one-lane
  // class its thread folds right away). Returns its code, kBlockClassCode for the block class.
  // After the flat kernel, a slot of up to kFlatMax elements is its and returns 0, unwritten.
  __device__ __forceinline__ uint8_t file_slot(uint64_t first, unsigned j, const segment_slot& slot) const {
    const uint8_t code = slot_code(slot.len, sizeof(T));
    if constexpr (!Source::kRowsAlike) {
      if (p.after_flat && slot.len <= kFlatMax) {  // written by the flat kernel
        sh.code[j] = 0;
        return 0;
      }
    }
    if (code == 0) write(first + j, Acc{}, false);
    const bool in_a_list = code > kAloneMax && code != kBlockClassCode;
    sh.code[j] = in_a_list ? code : 0;
    if (code > (kAloneMax >= 1 ? 1 : 0)) {
      sh.base[j] = slot.base;
      sh.len[j] = slot.len;
    }
    return code;
  }

  // Elements from … from + kItems - 1 of a segment of len elements, those below len (0: none).
  template <unsigned kItems>
  __device__ __forceinline__ void load_alone(const segment_slot& slot, unsigned len, T (&v)[kItems],
                                             unsigned from = 0) const {
    const View seg = p.source.view_of(slot);
#pragma unroll
    for (unsigned m = 0; m < kItems; ++m) v[m] = from + m < len ? seg.element_at(from + m) : T{};
  }

  // Elements v of a segment of len elements, v[m] its element start + m·stride, folded into f in
  // that order where they lie in it: a segment folded alone, a lane's share of a lane class.
  template <unsigned kItems>
  __device__ __forceinline__ void fold_items(fold_t& f, const T (&v)[kItems], unsigned len, unsigned start,
                                             unsigned stride) const {
#pragma unroll
    for (unsigned m = 0; m < kItems; ++m) {
      const unsigned e = start + m * stride;
      if (e < len) f.add_element(v[m], e);
    }
  }

  // The first len of a segment's elements v folded in element order: a segment folded alone.
  template <unsigned kItems>
  __device__ __forceinline__ Acc fold_in_order(const T (&v)[kItems], unsigned len) const {
    fold_t f = new_fold();
    fold_items(f, v, len, 0, 1);
    return f.acc;
  }

  // Slots k0 … k0 + kInFlight - 1 of this thread with elements in `lens` (byte k; 0: not folded
  // here), each folded in element order: written, or, for a longer one (bit k of `longer`), its
  // first part's fold kept for the rest.
  template <unsigned kInFlight, unsigned kItems>
  __device__ __forceinline__ void fold_alone(uint64_t first, unsigned k0, const T (&v)[kInFlight][kItems],
                                             unsigned lens, unsigned longer) const {
#pragma unroll
    for (unsigned b = 0; b < kInFlight; ++b) {
      const unsigned len = lens >> 8 * (k0 + b) & 0xffu;
      if (len == 0) continue;
      const Acc acc = fold_in_order(v[b], len);
      if (longer >> (k0 + b) & 1u) {
        keep_head(k0 + b, acc);
      } else {
        write(first + threadIdx.x + (k0 + b) * kSegmentThreads, acc, true);
      }
    }
  }

  // Lane in_group's elements of a lane-class segment of len: in_group, in_group + lanes, … (at
  // most kLaneItems), loaded, and folded in that order.
  __device__ __forceinline__ void load_lane_items(const View& seg, unsigned len, unsigned lanes, unsigned in_group,
                                                  T (&v)[kLaneItems]) const {
#pragma unroll
    for (unsigned m = 0; m < kLaneItems; ++m) {
      if (in_group + m * lanes < len) v[m] = seg.element_at(uint64_t(in_group) + m * lanes);
    }
  }
  __device__ __forceinline__ Acc fold_lane_items(const T (&v)[kLaneItems], unsigned len, unsigned lanes,
                                                 unsigned in_group) const {
    fold_t f = new_fold();
    fold_items(f, v, len, in_group, lanes);
    return f.acc;
  }

  // The first part's fold of this thread's slot k (kSplitsAlone).
  __device__ __forceinline__ void keep_head(unsigned k, const Acc& acc) const {
    if constexpr (kSplitsAlone) {
      memcpy(sh.heads + (threadIdx.x + k * kSegmentThreads) * sizeof(Acc), &acc, sizeof(Acc));
    }
  }
  __device__ __forceinline__ fold_t fold_after_head(unsigned k) const {
    if constexpr (kSplitsAlone) {
      Acc acc;
      memcpy(&acc, sh.heads + (threadIdx.x + k * kSegmentThreads) * sizeof(Acc), sizeof(Acc));
      return fold_t{acc, true, p.op, p.form};
    } else {
      return new_fold();
    }
  }

  // The thread's slots of the lane classes above one lane up to kAloneMax (bit k of `longer`):
  // their elements from kHeadItems on, from the filed positions, folded on from the first part in
  // element order, a batch of slots' loads in flight (8-byte elements: one slot's; two spill).
  __device__ __forceinline__ void fold_longer_alone(uint64_t first, unsigned longer) const {
    constexpr unsigned kRest = kAloneItems - kHeadItems;
    constexpr unsigned kInFlight = alone_in_flight(sizeof(T), sizeof(T) <= 4 ? kRest : kAloneItems, kPerThread);
#pragma unroll
    for (unsigned k0 = 0; k0 < kPerThread; k0 += kInFlight) {
      if ((longer >> k0 & ((1u << kInFlight) - 1)) == 0) continue;
      T v[kInFlight][kRest];
      unsigned lens = 0;  // byte b: slot k0 + b's length, where it is one of these
#pragma unroll
      for (unsigned b = 0; b < kInFlight; ++b) {
        const unsigned j = threadIdx.x + (k0 + b) * kSegmentThreads;
        const bool mine = longer >> (k0 + b) & 1u;
        const unsigned len = mine ? unsigned(sh.len[j]) : 0u;
        load_alone({mine ? sh.base[j] : 0, len}, len, v[b], kHeadItems);
        lens |= len << 8 * b;
      }
#pragma unroll
      for (unsigned b = 0; b < kInFlight; ++b) {
        const unsigned len = lens >> 8 * b & 0xffu;
        if (len == 0) continue;
        fold_t f = fold_after_head(k0 + b);
        fold_items(f, v[b], len, kHeadItems, 1);
        write(first + threadIdx.x + (k0 + b) * kSegmentThreads, f.acc, true);
      }
    }
  }

  // Thread 0, after a tile's classification: the counter that helpers wait on goes up by one.
  // Where the tile published a long segment, the add releases the block's stores, so that a
  // helper reading the count finds the entry at once (one that missed it would only leave its
  // pieces to others: the publisher helps too). Elsewhere it is relaxed, as a release waits for
  // the thread's stores to land, a round trip the block's next tile would wait for; a relaxed add
  // extends the chain of adds, so a helper reading past it still sees what earlier releases did.
  // The block's first add installs the call's tag and is acq_rel either way.
  __device__ __forceinline__ void count_classified_tile(bool published) {
    if (counted_a_tile && published) {
      tagged_add_installed(word(kClassifiedWord), 1, cuda::memory_order_release);
    } else if (counted_a_tile) {
      tagged_add_installed(word(kClassifiedWord), 1, cuda::memory_order_relaxed);
    } else {
      tagged_add(word(kClassifiedWord), tag, 1);
      counted_a_tile = true;
    }
  }

  // Lists the calling warp's slots [lo, hi) of each listed lane class c (code kAloneMax + 1 + c)
  // in sh.listed[warp][c], in slot order, in one pass over their codes; counts[c] is how many.
  // Every lane of the warp calls it.
  __device__ void list_lane_classes(unsigned lo, unsigned hi, unsigned warp_id, unsigned lane,
                                    unsigned (&counts)[kListedClasses]) {
#pragma unroll
    for (unsigned c = 0; c < kListedClasses; ++c) counts[c] = 0;
    const unsigned below = (1u << lane) - 1;
    for (unsigned c0 = lo; c0 < hi; c0 += 32) {
      const unsigned j = c0 + lane;
      const unsigned code = j < hi ? sh.code[j] : 0;
#pragma unroll
      for (unsigned c = 0; c < kListedClasses; ++c) {
        const unsigned mine = kAloneMax + 1 + c;
        const unsigned mask = __ballot_sync(warp::kFullMask, code == mine);
        if (code == mine) sh.listed[warp_id][c][counts[c] + __popc(mask & below)] = uint16_t(j);
        counts[c] += __popc(mask);
      }
    }
    __syncwarp();
  }

  // The `total` listed slots of the lane class of `lanes` lanes (kLanes where it is not 0: a
  // constant, so that a segment's loads are one address and fixed offsets, and the exchanges
  // unroll). Each group of lanes takes lane_batch<T> of them at a time, every load out before any
  // fold; lane l of a group reads elements l, l + lanes, … (at most kLaneItems).
  template <unsigned kLanes>
  __device__ void fold_lane_class(uint64_t first, const uint16_t* listed, unsigned total, unsigned lane,
                                  unsigned run_time_lanes) const {
    constexpr unsigned kBatch = lane_batch<T>;
    static_assert(uint64_t(kLaneItems) * kMaxLaneGroup < (uint64_t(1) << 32), "a lane-class length fits in 32 bits");
    const unsigned lanes = kLanes != 0 ? kLanes : run_time_lanes;
    const unsigned groups = 32 / lanes, group = lane / lanes, in_group = lane % lanes;
    for (unsigned next = 0; next < total; next += groups * kBatch) {
      T v[kBatch][kLaneItems];
      unsigned slot[kBatch], len[kBatch];
#pragma unroll
      for (unsigned b = 0; b < kBatch; ++b) {
        const unsigned k = next + b * groups + group;
        slot[b] = k < total ? listed[k] : 0;
        len[b] = k < total ? unsigned(sh.len[slot[b]]) : 0u;
        load_lane_items(p.source.view_of({k < total ? sh.base[slot[b]] : 0, len[b]}), len[b], lanes, in_group, v[b]);
      }
      Acc acc[kBatch];
#pragma unroll
      for (unsigned b = 0; b < kBatch; ++b) acc[b] = fold_lane_items(v[b], len[b], lanes, in_group);
      if constexpr (kBatch == 2) {
        static_assert(kAloneMax >= 1, "pairs need groups of two lanes or more: one-lane segments are folded alone");
        fold_pair_in_group(first, acc, slot, len, lanes, in_group);
      } else {
        const unsigned valid = len[0] < lanes ? len[0] : lanes;
        const Acc group_total = reduce_in_group(acc[0], p.op, lanes, in_group, valid);
        if (in_group == 0 && len[0] > 0) write(first + slot[0], group_total, true);
      }
    }
  }

  // Two listed segments' lane values: a lane class gives every lane of a group at least two
  // elements, so all hold values, and one exchange leaves each half of the group one segment
  // (one shuffle for both, where halving each would take two); the halves then fold theirs, and
  // each half's first lane writes it.
  __device__ __forceinline__ void fold_pair_in_group(uint64_t first, const Acc (&acc)[2], const unsigned (&slot)[2],
                                                     const unsigned (&len)[2], unsigned lanes,
                                                     unsigned in_group) const {
    const unsigned half = lanes / 2;
    const bool upper = (in_group & half) != 0;
    const Acc halves = exchange_halves(acc[0], acc[1], p.op, int(half), upper);
    const Acc total = fold_lanes_below(halves, p.op, half / 2, in_group);
    const unsigned my_len = upper ? len[1] : len[0];
    const unsigned my_slot = upper ? slot[1] : slot[0];
    if ((in_group & (half - 1)) == 0 && my_len > 0) write(first + my_slot, total, true);
  }

  // The listed lane classes, narrowest first. Segments with offsets take a copy of the fold per
  // class, its lane count a constant; rows, which all fall in one class, keep one copy, as the
  // unrolled copies spill in the rows kernels' register budget.
  __device__ __forceinline__ void fold_listed_classes(uint64_t first, const unsigned (&counts)[kListedClasses],
                                                      unsigned warp_id, unsigned lane) const {
    if constexpr (Source::kRowsAlike) {
#pragma unroll 1
      for (unsigned c = 0; c < kListedClasses; ++c) {
        unsigned total = 0;  // counts[c] by selects: a dynamic index would put counts in local memory
#pragma unroll
        for (unsigned k = 0; k < kListedClasses; ++k) total = k == c ? counts[k] : total;
        if (total != 0) fold_lane_class<0>(first, sh.listed[warp_id][c], total, lane, 1u << (kAloneMax + c));
      }
    } else {
      fold_listed_class<0>(first, counts, warp_id, lane);
    }
  }
  template <unsigned c>
  __device__ __forceinline__ void fold_listed_class(uint64_t first, const unsigned (&counts)[kListedClasses],
                                                    unsigned warp_id, unsigned lane) const {
    constexpr unsigned kLanes = 1u << (kAloneMax + c);
    if (counts[c] != 0) fold_lane_class<kLanes>(first, sh.listed[warp_id][c], counts[c], lane, kLanes);
    if constexpr (c + 1 < kListedClasses) fold_listed_class<c + 1>(first, counts, warp_id, lane);
  }

  // One warp-class segment, s at `slot`, by the calling warp.
  __device__ void fold_in_warp(uint64_t s, const segment_slot& slot, unsigned lane) const {
    const View seg = p.source.view_of(slot);
    fold_t f = new_fold();
    const unsigned valid = fold_segment_in_warp(seg, lane, f);
    const Acc total = warp::reduce_down_partial(f.acc, p.op, int(valid));
    if (lane == 0) write(s, total, true);
  }

  // Step 3: warp w takes the w-th share of the tile's slots: its lane classes, narrowest first,
  // each listed then folded with many segments in flight, then its warp-class segments one by one.
  __device__ void fold_warp_classes(uint64_t first, unsigned count) {
    const unsigned warp_id = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned share = (count + kSegmentWarps - 1) / kSegmentWarps;
    const unsigned lo = min(count, warp_id * share), hi = min(count, lo + share);
    unsigned counts[kListedClasses];
    list_lane_classes(lo, hi, warp_id, lane, counts);
    fold_listed_classes(first, counts, warp_id, lane);
    for (unsigned c0 = lo; c0 < hi; c0 += 32) {
      const unsigned j = c0 + lane;
      const bool warp_class = j < hi && sh.code[j] == kWarpClassCode;
      for (unsigned mask = __ballot_sync(warp::kFullMask, warp_class); mask != 0; mask &= mask - 1) {
        const unsigned k = c0 + unsigned(__ffs(int(mask)) - 1);
        fold_in_warp(first + k, {sh.base[k], sh.len[k]}, lane);
      }
    }
  }

  // Step 4 for one segment: its pieces one after another (one for a block-class segment), thread
  // t folding the totals of pieces t, t + threads, … in order, then the block reduction: the order
  // of fold_tagged_partials, so a long segment's bits do not depend on whether it was shared.
  // one_piece: the tile's filing found it one piece, so its piece count is not computed again.
  __device__ void reduce_whole(uint64_t s, const segment_slot& slot, bool one_piece) {
    const View seg = p.source.view_of(slot);
    const auto items = seg.items();
    const uint64_t pieces = one_piece ? 1 : pieces_of(items);
    thread_fold<Acc, Op, no_form> g{Acc{}, false, p.op};
    for (uint64_t piece = 0; piece < pieces; ++piece) {
      fold_t f = new_fold();
      fold_piece(seg, items, piece, pieces, f);
      int valid = 0;
      const Acc total = block_total(f, p.op, sh.storage, valid);
      if (pieces == 1) {
        if (threadIdx.x == 0) write(s, total, valid > 0);
        return;
      }
      if (threadIdx.x == 0) memcpy(sh.piece_total, &total, sizeof(Acc));
      __syncthreads();
      if (threadIdx.x == piece % kSegmentThreads) {
        Acc t;
        memcpy(&t, sh.piece_total, sizeof(Acc));
        g.add(t);
      }
    }
    // The last piece's block reduction is past its barriers, and piece_total is read before the
    // next block_total's: `storage` is free.
    const Acc total = block::reduce<kSegmentThreads>(g.acc, p.op, int(pieces < kSegmentThreads ? pieces : kSegmentThreads),
                                                     sh.storage);
    if (threadIdx.x == 0) write(s, total, true);
  }

  // Thread 0, where own segment k (of `owned`) is kStageable: the copy of its first staged items
  // into the stage, once every thread is done with what the stage's space held (the lists or the
  // previous stage), and its record.
  __device__ __forceinline__ void stage_if_marked(unsigned k, unsigned owned) {
    if constexpr (kStages) {
      if (k >= owned || (sh.own[k] & kStageable) == 0) return;
      const unsigned j = own_slot(sh.own[k]);
      const auto items = p.source.view_of({sh.base[j], sh.len[j]}).items();
      bulk::fence_before_copies();  // the threads' accesses to that space come before the copy's
      bulk::copy_async(sh.stage, items.body(), kStageBytes, &sh.stage_full);
      sh.staged[k % 2].own = k;
      sh.staged[k % 2].items = items;
      sh.staged[k % 2].len = sh.len[j];
    }
  }
  // Step 4 for own segment k (s), one piece whose first tile starts in the stage: that tile, then
  // the rest as fold_piece reads them, so the bits are reduce_whole's. Its items come from thread
  // 0's record. Once every thread has read the stage, thread 0 stages own segment k + 1's items
  // where it is kStageable.
  __device__ void reduce_staged(uint64_t s, unsigned k, unsigned owned) {
    if constexpr (kStages) {
      using item = typename items_type::item;
      constexpr unsigned kInFlight = segment_items_in_flight<items_type>;
      const unsigned next = k + 1;
      const items_type items = sh.staged[k % 2].items;
      const View seg{items.in, sh.staged[k % 2].len};
      fold_t f = new_fold();
      item v[kInFlight];
      first_tile_from_stage<kStagedItems>(items, reinterpret_cast<const item*>(sh.stage), &sh.stage_full,
                                          stage_waits++ % 2, v);
      __syncthreads();  // every thread has read the stage
      if (threadIdx.x == 0) stage_if_marked(next, owned);
#pragma unroll
      for (unsigned k = 0; k < kInFlight; ++k) f.add_item(items, v[k], threadIdx.x + k * kSegmentThreads);
      fold_tiles_from(seg, items, 1, 1, true, f);
      int valid = 0;
      const Acc total = block_total(f, p.op, sh.storage, valid);
      if (threadIdx.x == 0) write(s, total, valid > 0);
    }
  }

  __device__ void run_tile(uint64_t tile) {
    const uint64_t first = tile * p.tile_segments;
    const uint64_t left = p.segments - first;
    const unsigned count = unsigned(left < p.tile_segments ? left : p.tile_segments);
    // own_count is final since load_tile's last barrier. The block reductions below touch nothing
    // the lists use but the stage, which takes the lists' space: one barrier where both are used.
    const bool lists = load_tile(first, count);
    const unsigned owned = sh.own_count;
    if (lists) {
      fold_warp_classes(first, count);
      if (kStages && owned > 0) __syncthreads();
    }
    if (kStages && threadIdx.x == 0) {
      sh.staged[0].own = sh.staged[1].own = kNoStage;
      stage_if_marked(0, owned);
    }
    if (kStages && owned > 0) __syncthreads();  // the records are every thread's: own segments read them
    // Later records are written during the segment before theirs, ahead of its block reduction's
    // barriers.
    for (unsigned k = 0; k < owned; ++k) {
      const unsigned j = own_slot(sh.own[k]);
      if (kStages && sh.staged[k % 2].own == k) {
        reduce_staged(first + j, k, owned);
      } else {
        if (threadIdx.x == 0) stage_if_marked(k + 1, owned);
        reduce_whole(first + j, {sh.base[j], sh.len[j]}, (sh.own[k] & kOnePiece) != 0);
      }
    }
  }

  __device__ __forceinline__ uint32_t draw(uint32_t e) const {
    return tagged_add_installed(entry(e) + 1, 1, cuda::memory_order_relaxed);
  }

  // Entry e as a scan sees it, in one round trip: published or not, its pieces and the pieces
  // drawn. The loads are relaxed, so the piece count may be an earlier call's; whoever acts on it
  // reads it again after an acquire fence (fresh_pieces, claim_from).
  struct entry_view {
    bool published = false;
    uint32_t pieces = 0, drawn = 0;
    __device__ __forceinline__ bool has_pieces() const { return published && drawn < pieces; }
  };
  __device__ __forceinline__ entry_view scan_view(uint32_t e) const {
    unsigned long long* w = entry(e);
    const unsigned long long flag = device_word(w[0]).load(cuda::memory_order_relaxed);
    const unsigned long long cursor = device_word(w[1]).load(cuda::memory_order_relaxed);
    const unsigned long long pieces = device_word(w[5]).load(cuda::memory_order_relaxed);
    entry_view v;
    v.published = flag == published();
    v.pieces = uint32_t(pieces);
    v.drawn = uint32_t(cursor >> 32) == tag ? uint32_t(cursor) : 0u;
    return v;
  }
  // The piece count of entry e, seen published by this thread's earlier load: after the fence, the
  // publisher's stores before its flag are seen.
  __device__ __forceinline__ uint32_t fresh_pieces(uint32_t e) const {
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    return uint32_t(device_word(entry(e)[5]).load(cuda::memory_order_relaxed));
  }

  __device__ __forceinline__ uint32_t draws_made(uint32_t e) const { return tagged_count(entry(e) + 1, tag); }

  // Block-wide, for a window of entries [from, from + threads) below `entries` where no entry
  // showed pieces left: where every one is published and spent (checked again after a fence),
  // thread 0 moves the spent hint past the window, so that no block reads it again.
  __device__ __forceinline__ void pass_spent_window(uint32_t from, uint32_t entries, const entry_view& v) const {
    const uint32_t e = from + threadIdx.x;
    if (!__syncthreads_and(e >= entries || v.published)) return;  // an owner, still running, has one
    const bool spent = e >= entries || fresh_pieces(e) <= draws_made(e);
    if (__syncthreads_and(spent) && threadIdx.x == 0) {
      const uint32_t end = entries - from < kSegmentThreads ? entries : from + kSegmentThreads;
      atomicMax(word(kSpentEntriesWord), tagged_zero(tag) | end);
    }
  }
  // This thread's place among the block's threads whose `has` is set, and how many those are.
  __device__ __forceinline__ unsigned rank_among(bool has, unsigned& total) {
    const unsigned lane = threadIdx.x % 32, warp_id = threadIdx.x / 32;
    const unsigned mask = __ballot_sync(warp::kFullMask, has);
    const unsigned before = warps_before(unsigned(__popc(mask)), lane == 0, warp_id, total);
    return before + unsigned(__popc(mask & ((1u << lane) - 1)));
  }
  // Block-wide: the sum of the warps' counts (`count`, given by each warp's `writer` lane) before
  // the calling warp, and of all (`total`).
  __device__ __forceinline__ unsigned warps_before(unsigned count, bool writer, unsigned warp_id, unsigned& total) {
    if (writer) sh.warp_counts[warp_id] = count;
    __syncthreads();
    unsigned before = 0;
    total = 0;
#pragma unroll
    for (unsigned w = 0; w < kSegmentWarps; ++w) {
      const unsigned c = sh.warp_counts[w];
      before += w < warp_id ? c : 0u;
      total += c;
    }
    return before;
  }

  // Block-wide: draws a piece of a published long segment into sh.claim; false where every
  // published entry from the spent hint on is spent. The block's threads read a window of
  // entries at once, and the block draws from the entry its index picks among those with pieces
  // left: idle blocks spread over the entries in one round trip, where walking them one by one
  // would queue every block at every entry's cursor in turn.
  __device__ bool find_piece() {
    // One thread reads where the scan starts and ends, so that every thread takes the same rounds.
    if (threadIdx.x == 0) {
      const uint32_t counted = tagged_count(word(kEntriesWord), tag);
      sh.scan[0] = tagged_count(word(kSpentEntriesWord), tag);
      sh.scan[1] = uint32_t(counted < p.layout.max_entries ? counted : p.layout.max_entries);
    }
    __syncthreads();
    uint32_t from = sh.scan[0];
    const uint32_t entries = sh.scan[1];
    while (from < entries) {
      const uint32_t e = from + threadIdx.x;
      const entry_view v = e < entries ? scan_view(e) : entry_view{};
      unsigned total = 0;
      const unsigned rank = rank_among(v.has_pieces(), total);
      if (total == 0) {
        pass_spent_window(from, entries, v);
        from += kSegmentThreads;
        continue;
      }
      if (v.has_pieces() && rank == blockIdx.x % total) claim_from(e);
      __syncthreads();
      const bool found = sh.claim.entry != kNoEntry;
      __syncthreads();  // read before the next round's writes
      if (found) return true;
    }
    return false;
  }

  // A draw from entry e into sh.claim (one thread), with the entry's words read after an acquire
  // fence (the scan's relaxed loads may have seen an earlier call's) in the draw's round trip.
  __device__ __forceinline__ void claim_from(uint32_t e) const {
    const uint32_t pieces = fresh_pieces(e);  // the fence orders the loads below too
    unsigned long long* w = entry(e);
    const uint64_t segment = device_word(w[3]).load(cuda::memory_order_relaxed);
    const uint32_t pool_base = uint32_t(device_word(w[4]).load(cuda::memory_order_relaxed));
    const int64_t base = int64_t(device_word(w[6]).load(cuda::memory_order_relaxed));
    const uint64_t len = device_word(w[7]).load(cuda::memory_order_relaxed);
    const uint32_t drawn = draw(e);
    sh.claim.entry = drawn < pieces ? e : kNoEntry;
    sh.claim.piece = drawn;
    sh.claim.pool_base = pool_base;
    sh.claim.pieces = pieces;
    sh.claim.segment = segment;
    sh.claim.slot = {base, len};
  }

  // The block's fold of piece `piece` of the segment at `slot`'s `pieces`, in thread 0 (`valid`:
  // block_total's).
  __device__ __forceinline__ Acc piece_total(const segment_slot& slot, uint64_t piece, uint64_t pieces, int& valid) {
    const View seg = p.source.view_of(slot);
    fold_t f = new_fold();
    fold_piece(seg, seg.items(), piece, pieces, f);
    return block_total(f, p.op, sh.storage, valid);
  }

  // The claimed piece (sh.claim): its partial stored; the block that delivers the last one folds
  // them. sh.claim stays until the next claim, which follows deliver_piece's barrier.
  __device__ void take_piece() {
    int valid = 0;
    const Acc total = piece_total(sh.claim.slot, sh.claim.piece, sh.claim.pieces, valid);
    // The entry's arrivals carry the tag since its publication: one add counts the piece.
    deliver_piece(sh.claim.segment, sh.claim.pool_base, sh.claim.piece, sh.claim.pieces, total,
                  [&] { return tagged_add_installed(entry(sh.claim.entry) + 2, 1); });
  }

  // Piece `piece` of segment s's `pieces`, whose partials lie from pool piece `base`: its total
  // stored, and counted by `arrive` (thread 0; the pieces counted before, with release order). The
  // block that delivers the last one folds the partials in piece order and writes the result.
  template <class Arrive>
  __device__ void deliver_piece(uint64_t s, uint64_t base, uint32_t piece, uint32_t pieces, const Acc& total,
                                Arrive&& arrive) {
    const tagged_partials<Acc> parts{word(p.layout.pool_word + base * kPartialWords<Acc>), pieces, tag};
    if (threadIdx.x == 0) {
      parts.store(piece, total);
      sh.last = arrive() + 1 == pieces;
    }
    __syncthreads();
    if (!sh.last) return;
    bool stalled = false;
    const Acc sum = fold_tagged_partials(parts, pieces, p.op, sh.storage, p.timeout_ns, stalled);
    if (threadIdx.x == 0) {
      if (stalled) {
#ifdef WARPFOLD_TRAP_ON_STALLED_COMBINE
        __trap();
#endif
        write_stalled(s);
      } else {
        write(s, sum, true);
      }
    }
  }

  // Rows that are alike (row_pieces pieces each, every one block-class), with no tiles, lists or
  // published entries: block b takes pieces b, b + grid, … of all rows' pieces in row order, as
  // the host knows every row's length. Row s's partials lie from pool piece s·row_pieces, its
  // arrivals in the word where entry s would count them; the bits are those of the tiled path.
  __device__ void run_alike_rows() {
    const uint32_t pieces = uint32_t(p.row_pieces);
    // Piece g of all is piece g mod pieces of row g / pieces: one division, then steps of the grid.
    const uint32_t row_step = gridDim.x / pieces, piece_step = gridDim.x % pieces;
    uint64_t s = blockIdx.x / pieces;
    uint32_t piece = blockIdx.x % pieces;
    const auto advance = [&] {
      piece += piece_step;
      const bool carry = piece >= pieces;
      piece -= carry ? pieces : 0u;
      s += row_step + carry;
    };
    for (; s < p.segments; advance()) {
      int valid = 0;
      const Acc total = piece_total(p.source.slot(s), piece, pieces, valid);
      if (pieces == 1) {
        if (threadIdx.x == 0) write(s, total, valid > 0);
        continue;  // the next block_total's barrier orders this use of `storage` before the next
      }
      deliver_piece(s, s * pieces, piece, pieces, total, [&] { return tagged_add(entry(s) + 2, tag, 1); });
    }
  }

  // Warp-class rows that are alike: warp w of the grid takes rows w, w + warps, … and folds each
  // as the tiled path's warp class does, so the bits are the same.
  __device__ void run_rows_by_warp() {
    const uint64_t warps = uint64_t(gridDim.x) * kSegmentWarps;
    for (uint64_t s = uint64_t(blockIdx.x) * kSegmentWarps + threadIdx.x / 32; s < p.segments; s += warps) {
      fold_in_warp(s, p.source.slot(s), threadIdx.x % 32);
    }
  }

  // --- few segments: at most one tile's, planned alike by every block -----------------------

  // Every block reads every segment's slot and plans the same schedule, so that no block
  // publishes, counts or waits: warps take the segments up to the warp class (from the last block
  // down), and block b takes units b, b + grid, … of the block-class segments' pieces (one each
  // but for long ones) in segment order. Each is folded as the tiled path folds it, so the bits
  // are the same. The warps fold theirs first, from their own reads of the offsets, so that a call
  // with no block-class segment waits for no plan. Only the split segments' pieces keep partials:
  // false, in every block alike, where the pool cannot hold them all (without the input's length,
  // more than 32 segments split grid-wide; with it, segments that overlap); the tiled path then
  // runs (and folds the short segments again, to the same bits).
  __device__ bool run_few_segments() {
    const unsigned count = unsigned(p.segments);
    const uint64_t warps = uint64_t(gridDim.x) * kSegmentWarps;
    const uint64_t w = uint64_t(gridDim.x - 1 - blockIdx.x) * kSegmentWarps + threadIdx.x / 32;
    const typename Source::raw_slot first = p.source.read(w < count ? w : count - 1);  // with the slots' reads
    const bool any_whole = read_few_slots(count);
    fold_short_segments(count, w, warps, first);
    if (!__syncthreads_or(any_whole)) return true;  // no units: nothing to plan
    uint32_t split = 0;
    const uint32_t units = plan_units(count, split);
    if (split > p.layout.pool_pieces) return false;
    for (uint64_t u = blockIdx.x; u < units; u += gridDim.x) take_unit(uint32_t(u), count, units);
    return true;
  }

  // Reads the slots of segments [0, count) into shared memory (visible after the caller's
  // barrier); whether any of this thread's is block-class.
  __device__ bool read_few_slots(unsigned count) {
    typename Source::raw_slot raw[kPerThread];
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x + k * kSegmentThreads;
      raw[k] = p.source.read(j < count ? j : count - 1);  // every read out before any is used
    }
    bool any = false;
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x + k * kSegmentThreads;
      if (j >= count) continue;
      const segment_slot slot = p.source.slot_of(raw[k]);
      sh.base[j] = slot.base;
      sh.len[j] = slot.len;
      any |= block_class(slot.len, sizeof(T));
    }
    return any;
  }

  // From the slots in shared memory: in segment order, exclusive prefix sums of each segment's
  // units (pieces of a block-class segment, else 0) in sh.own and of its split pieces (its units
  // where they are two or more) in sh.split_before. Returns the units of all, and the split
  // pieces of all in `split`.
  __device__ uint32_t plan_units(unsigned count, uint32_t& split) {
    // Thread t sums slots 4t … 4t + 3 (kPerThread of them), the block scans the sums, and thread t
    // writes its slots' exclusive sums back.
    static_assert(kPerThread * kSegmentThreads == kMaxTileSegments, "a thread scans kPerThread neighbouring slots");
    const auto split_of = [](uint32_t units) { return units >= 2 ? units : 0u; };
    uint32_t mine[kPerThread], sum = 0, split_sum = 0;
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x * kPerThread + k;
      const segment_slot slot{sh.base[j < count ? j : 0], sh.len[j < count ? j : 0]};
      const bool whole = j < count && block_class(slot.len, sizeof(T));
      mine[k] = whole ? uint32_t(pieces_of(p.source.view_of(slot).items())) : 0u;
      sum += mine[k];
      split_sum += split_of(mine[k]);
    }
    uint32_t total = 0;
    uint32_t before = exclusive_sum_in_block(sum, total);
    uint32_t split_before = exclusive_sum_in_block(split_sum, split);
#pragma unroll
    for (unsigned k = 0; k < kPerThread; ++k) {
      const unsigned j = threadIdx.x * kPerThread + k;
      if (j < count) {
        sh.own[j] = before;
        sh.split_before[j] = split_before;
      }
      before += mine[k];
      split_before += split_of(mine[k]);
    }
    __syncthreads();
    return total;
  }

  // The sum of v over the threads before this one, and over all (`total`). Its barriers also end
  // every earlier use of sh.warp_counts.
  __device__ __forceinline__ uint32_t exclusive_sum_in_block(uint32_t v, uint32_t& total) {
    const unsigned lane = threadIdx.x % 32, warp_id = threadIdx.x / 32;
    uint32_t inclusive = v;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const uint32_t got = __shfl_up_sync(warp::kFullMask, inclusive, offset);
      if (int(lane) >= offset) inclusive += got;
    }
    __syncthreads();  // every earlier reader of warp_counts is past it
    return warps_before(inclusive, lane == 31, warp_id, total) + inclusive - v;
  }

  // The segments up to the warp class: the grid's warps, counted from the last block's (warp w of
  // `warps`), take segments w, w + warps, …, so that the first blocks start on the units. Warp w's
  // first slot comes read (`first`); the others it reads itself.
  __device__ void fold_short_segments(unsigned count, uint64_t w, uint64_t warps,
                                      const typename Source::raw_slot& first) const {
    const unsigned lane = threadIdx.x % 32;
    for (uint64_t j = w; j < count; j += warps) {
      const segment_slot slot = p.source.slot_of(j == w ? first : p.source.read(j));
      const uint8_t code = slot_code(slot.len, sizeof(T));
      const segment_class c = class_of_code(code);
      if (c == segment_class::empty) {
        if (lane == 0) write(j, Acc{}, false);
      } else if (c == segment_class::lanes) {
        fold_lanes_in_warp(j, slot, code, lane);
      } else if (c == segment_class::warp) {
        fold_in_warp(j, slot, lane);
      }
    }
  }

  // One lane-class segment by the calling warp, as the tiled path folds it: codes up to
  // kAloneMax by lane 0 in element order (fold_alone), wider ones by lanes 0 … lanes - 1, lane l
  // reading elements l, l + lanes, … and the group halving (reduce_in_group: the bits of
  // fold_pair_in_group too).
  __device__ void fold_lanes_in_warp(uint64_t s, const segment_slot& slot, uint8_t code, unsigned lane) const {
    const unsigned len = unsigned(slot.len);  // a lane class: below 2^32
    if (code <= kAloneMax) {
      if (lane != 0) return;
      T v[kAloneItems];
      load_alone(slot, len, v);
      write(s, fold_in_order(v, len), true);
      return;
    }
    const unsigned lanes = 1u << (code - 1);
    const unsigned mine = lane < lanes ? len : 0u;  // lanes past the group hold nothing
    T v[kLaneItems];
    load_lane_items(p.source.view_of(slot), mine, lanes, lane, v);
    const Acc acc = fold_lane_items(v, mine, lanes, lane);
    const Acc total = reduce_in_group(acc, p.op, lanes, lane % lanes, len < lanes ? len : lanes);
    if (lane == 0) write(s, total, true);
  }

  // The last of segments [0, count) whose units start at or before u (sh.own: exclusive sums,
  // sh.own[0] = 0), found by two ballots where a search by halves waits on one shared read after
  // another. Lane l first tests segment 33·l, so that the lanes read 32 banks, not one; the
  // answer is the highest passing lane's segment or one of the 32 after it, which the second
  // ballot tests. Every lane of the warp calls it with the same u and count.
  __device__ __forceinline__ unsigned segment_of_unit(uint32_t u, unsigned count) const {
    static_assert(kMaxTileSegments <= 32 * 33, "two ballots reach every segment");
    const unsigned lane = threadIdx.x % 32;
    const unsigned coarse = lane * 33;
    const unsigned below = __ballot_sync(warp::kFullMask, coarse < count && sh.own[coarse] <= u);
    const unsigned base = unsigned(31 - __clz(int(below))) * 33;
    const unsigned fine = base + 1 + lane;
    const unsigned within = __ballot_sync(warp::kFullMask, fine < count && sh.own[fine] <= u);
    return within == 0 ? base : base + 1 + unsigned(31 - __clz(int(within)));
  }

  // Unit u of `units`: a piece of segment lo, the last whose units start at or before u (sh.own:
  // exclusive sums). A split segment's partials lie from pool piece sh.split_before[lo], its
  // arrivals count in the word of entry sh.split_before[lo] / 2 (split segments' first pieces are
  // at least 2 apart, so no two share one, and the entries hold half the pool's pieces).
  __device__ void take_unit(uint32_t u, unsigned count, uint32_t units) {
    const unsigned lo = segment_of_unit(u, count);
    const uint32_t first = sh.own[lo];
    const uint32_t pieces = (lo + 1 < count ? sh.own[lo + 1] : units) - first;
    int valid = 0;
    const Acc total = piece_total({sh.base[lo], sh.len[lo]}, u - first, pieces, valid);
    if (pieces == 1) {
      if (threadIdx.x == 0) write(lo, total, valid > 0);
      return;  // the next block_total's barrier orders this use of `storage` before the next
    }
    const uint32_t base = sh.split_before[lo];
    deliver_piece(lo, base, u - first, pieces, total, [&] { return tagged_add(entry(base / 2) + 2, tag, 1); });
  }

  // After the block's own tiles: wait (bounded) for the tiles of blocks 0 … b to be classified,
  // then take pieces of long segments until none is left. Each claim is a scan of its own, with no
  // draw made ahead while the block reads its piece: where an entry holds fewer pieces than the
  // blocks drawing from it, such draws come back empty and queue at the cursor that blocks still
  // without a piece draw from.
  __device__ void help() {
    if (threadIdx.x == 0) {
      const uint64_t need = tiles_through_block(blockIdx.x, p.tiles, gridDim.x);
      const uint32_t target = uint32_t(need < p.tiles ? need : p.tiles);
      bounded_wait wait{p.timeout_ns};
      // Every idle block polls this one word: a pause between polls leaves its L2 slice to the
      // working blocks' adds and loads.
      while (tagged_count(word(kClassifiedWord), tag) < target && wait.again()) __nanosleep(kHelperPollNs);
    }
    // find_piece's barriers order thread 0's wait before the scan, and deliver_piece's barrier
    // orders the claim's reads before the next claim_from writes it.
    while (find_piece()) take_piece();
  }
};

template <class Params>
__global__ void __launch_bounds__(kSegmentThreads, kSegmentMinBlocks) segments_kernel(const Params p) {
  using block_t = segments_block<Params>;
  __shared__ typename block_t::shared_state sh;
  if constexpr (!Params::source_type::kRowsAlike) {
    if (p.after_flat) wait_for_prior_grid();  // launched as the flat kernel's dependent
  }
  block_t b{p, sh, unsigned(p.key)};
  if (blockIdx.x == 0 && threadIdx.x == 0) b.clear_status();
  if constexpr (block_t::kStages) {
    // Before thread 0's first copy, and before any wait: load_tile's barriers come first.
    if (threadIdx.x == 0) {
      bulk::init_barrier(&sh.stage_full);
      bulk::fence_barrier_init();
    }
  }
  if constexpr (Params::source_type::kRowsAlike) {
    if (p.row_pieces != 0) return b.run_alike_rows();
    if (p.rows_by_warp) return b.run_rows_by_warp();
  }
  if constexpr (!Params::source_type::kRowsAlike) {
    if (p.after_flat && !b.flat_left_work()) return;
    if (p.segments <= kMaxTileSegments && b.run_few_segments()) return;
  }
  for (uint64_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) b.run_tile(tile);
  b.help();
}

}  // namespace warpfold::detail
