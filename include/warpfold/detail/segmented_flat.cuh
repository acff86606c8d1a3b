#pragma once
// The flat kernel: the segments of up to kFlatMax elements of a segmented_reduce call of many
// segments with offsets, folded before the segments kernel takes the longer ones
// (docs/segmented.md, "Many short segments: the flat kernel first"; docs/design.md, SG74, SG75).
//
// A warp takes 32 consecutive segments, a group, each lane reading one segment's offsets. Empty
// segments get init; a segment of up to kFlatAloneMax elements is folded by its lane, element by
// element, and a warp takes its groups with no longer segment two at a time, both groups' loads
// in flight together (one lane's few elements alone keep too few bytes in flight). The others of
// up to kFlatMax elements (the flat segments) are folded in one pass over the rows of kFlatRow
// elements that hold them. Rows lie on kFlatRow-element boundaries of the address
// space, so that a segment's fold depends on its length and its address modulo a row only. In a
// row, lane L holds elements 16L … 16L + 15 and folds them in place, restarting at each flat
// segment's start (a head); a segmented scan across the lanes carries a segment over lanes, a
// carry over rows. The row's folds go to shared memory vector-major (no bank conflict on the
// 16-byte stores) with each lane's open value (the fold entering it from the left), and each flat
// segment's lane reads its total at its last element. The next row's loads go out as soon as a
// row is stored, so that a row stays in flight through the scan. Rows that hold no flat segment
// are skipped. Where a group's flat segments are out of order, overlap, or span 2^31 elements or
// more, each is streamed as a group of its own, which gives the same bits. Longer segments are
// left to the segments kernel, launched after this one as a programmatic dependent (its blocks
// wait for this grid's end, then read in kLeftoverWord whether there are any).

#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/segmented_sources.cuh>

#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

inline constexpr unsigned kFlatLane = 16;             // elements per lane of a row
inline constexpr unsigned kFlatRow = 32 * kFlatLane;  // elements per row

template <class Form>
inline constexpr bool is_convert_form = false;
template <class Transform>
inline constexpr bool is_convert_form<convert<Transform>> = true;

// The element, accumulator and form types the flat kernel folds: an arithmetic type of 4 or 8
// bytes folded into itself (a row's elements and folds then share registers).
template <class T, class Acc, class Form>
inline constexpr bool flat_types = std::is_arithmetic_v<T> && std::is_same_v<T, Acc> &&
                                   (sizeof(T) == 4 || sizeof(T) == 8) && is_convert_form<Form>;

// A warp's shared memory: the row's folds, vector k of lane L at table[k][L]; each lane's open
// value; its head bits, in two buffers used by turns, so that a row clears the buffer of the row
// before once that row's readers are past its first barrier.
template <class Acc>
struct flat_warp_storage {
  static constexpr unsigned kPerVector = 16 / sizeof(Acc);
  struct alignas(16) vector {
    Acc e[kPerVector];
  };
  vector table[kFlatLane / kPerVector][32];
  Acc open_of[32];
  unsigned heads[2][32];
};

// A flat segment as its lane sees it: element positions from the span's row base (32-bit).
struct flat_lane {
  bool flat;
  unsigned begin, end;
  uint64_t s;
};

template <class Params>
struct flat_warp {
  using Source = typename Params::source_type;
  using T = typename Source::element;
  using Acc = typename Params::accumulator;
  static constexpr unsigned kPerVector = flat_warp_storage<Acc>::kPerVector;
  static constexpr unsigned kTPerVector = 16 / sizeof(T);
  struct alignas(16) load_vector {
    T e[kTPerVector];
  };

  const Params& p;
  flat_warp_storage<Acc>& sm;
  unsigned lane;

  __device__ __forceinline__ Acc lift(const T& x) const { return p.form.template lift<Acc>(x, 0); }
  __device__ __forceinline__ void write(uint64_t s, const Acc& total, bool has) const {
    p.out[s] = p.form.finish(p.op, p.init, total, has);
  }

  // The elements of a segment of up to kFlatAloneMax elements, T{} past its length.
  __device__ __forceinline__ void load_alone(const segment_slot& slot, T (&v)[kFlatAloneMax]) const {
    const T* e = p.source.in + slot.base;
    const unsigned len = unsigned(slot.len);
#pragma unroll
    for (unsigned k = 0; k < kFlatAloneMax; ++k) v[k] = k < len ? e[k] : T{};
  }

  // A segment of 1 … kFlatAloneMax elements loaded already, in element order.
  __device__ __forceinline__ Acc fold_alone(const T (&v)[kFlatAloneMax], unsigned len) const {
    Acc acc = lift(v[0]);
#pragma unroll
    for (unsigned k = 1; k < kFlatAloneMax; ++k)
      if (k < len) acc = p.op(acc, lift(v[k]));
    return acc;
  }

  // Lane i's segment 32·g + i of up to kFlatAloneMax elements, its elements loaded (v): its fold,
  // or init where it is empty; nothing past the last segment.
  __device__ __forceinline__ void finish_short(uint64_t g, const segment_slot& slot,
                                               const T (&v)[kFlatAloneMax]) const {
    const uint64_t s = g * 32 + lane;
    if (s < p.segments) write(s, fold_alone(v, unsigned(slot.len)), slot.len != 0);
  }

  // Groups g, g + warps, … whose segments hold at most kFlatAloneMax elements each, two at a
  // time, so that both groups' loads are in flight together; slot is lane i's of group g, and
  // `next` holds the offsets of group g + warps. Returns the first group not taken, with `next`
  // holding its offsets.
  template <class Read>
  __device__ uint64_t run_short_groups(uint64_t g, segment_slot slot, typename Source::raw_slot& next, uint64_t warps,
                                       uint64_t groups, const Read& read) const {
    for (;;) {
      T v[kFlatAloneMax];
      load_alone(slot, v);
      const uint64_t h = g + warps;
      const segment_slot later = slot_in(h, next);
      if (h >= groups || __ballot_sync(warp::kFullMask, later.len > kFlatAloneMax) != 0) {
        finish_short(g, slot, v);
        return h;
      }
      const typename Source::raw_slot after = read(h + warps);
      next = read(h + 2 * warps);
      T u[kFlatAloneMax];
      load_alone(later, u);
      finish_short(g, slot, v);
      finish_short(h, later, u);
      g = h + warps;
      if (g >= groups) return g;
      slot = slot_in(g, after);
      if (__ballot_sync(warp::kFullMask, slot.len > kFlatAloneMax) != 0) {
        next = after;
        return g;
      }
    }
  }

  // Lane i's segment 32·g + i of group g, its offsets read already (raw); empty past the last.
  __device__ __forceinline__ segment_slot slot_in(uint64_t g, const typename Source::raw_slot& raw) const {
    return g * 32 + lane < p.segments ? p.source.slot_of(raw) : segment_slot{0, 0};
  }

  // Elements from … from + 15 of the row base, those outside [lo, hi) as T{} (never read back):
  // whole vectors where the lane's share lies inside, else element by element.
  __device__ __forceinline__ static void load_share(const T* __restrict__ base, unsigned from, unsigned lo,
                                                    unsigned hi, T (&x)[kFlatLane]) {
    if (from >= lo && from + kFlatLane <= hi) {
      const load_vector* v = reinterpret_cast<const load_vector*>(base + from);
#pragma unroll
      for (unsigned q = 0; q < kFlatLane / kTPerVector; ++q) {
        const load_vector w = v[q];
#pragma unroll
        for (unsigned m = 0; m < kTPerVector; ++m) x[q * kTPerVector + m] = w.e[m];
      }
    } else {
#pragma unroll
      for (unsigned m = 0; m < kFlatLane; ++m) x[m] = from + m >= lo && from + m < hi ? base[from + m] : T{};
    }
  }

  // The rows that hold part of a flat segment, as bits, where the span has at most 32 rows (the
  // next row one instruction away); else 0, and next_row asks the warp at every row.
  __device__ __forceinline__ static unsigned row_bits(const flat_lane& me, unsigned hi) {
    if ((hi - 1) / kFlatRow >= 32) return 0u;
    const unsigned first = me.begin / kFlatRow, last = (me.end - 1) / kFlatRow;
    return warp::reduce_all(me.flat ? (~0u >> (31 - last)) & (~0u << first) : 0u, bit_or{});
  }

  // The next row after r that holds part of a flat segment (~0u: none).
  __device__ __forceinline__ static unsigned next_row(const flat_lane& me, unsigned r, unsigned rows) {
    if (rows != 0) {
      const unsigned after = r >= 31 ? 0u : rows & (~0u << (r + 1));
      return after != 0 ? unsigned(__ffs(int(after))) - 1 : ~0u;
    }
    unsigned candidate = ~0u;
    if (me.flat) {
      const unsigned first = me.begin / kFlatRow, last = (me.end - 1) / kFlatRow;
      candidate = first > r ? first : last > r ? r + 1 : ~0u;
    }
    return warp::reduce_all(candidate, minimum{});
  }

  // The flat lanes' segments, all within [lo, hi) of the row base `base` (hi - lo < 2^31), in
  // order and apart: their rows streamed once.
  __device__ void fold_rows(const T* __restrict__ base, unsigned lo, unsigned hi, const flat_lane& me) const {
    T x[kFlatLane];
    unsigned r = lo / kFlatRow;
    load_share(base, r * kFlatRow + kFlatLane * lane, lo, hi, x);
    const unsigned rows = row_bits(me, hi);
    Acc carry{};
    unsigned turn = 0;
    while (r != ~0u) {
      const unsigned row_first = r * kFlatRow, place = me.begin - row_first;
      const unsigned next = next_row(me, r, rows);
      unsigned* words = sm.heads[turn];
      if (me.flat && place < kFlatRow) atomicOr(&words[place / kFlatLane], 1u << (place % kFlatLane));
      __syncwarp();
      sm.heads[turn ^ 1][lane] = 0u;  // the row before's: its readers are past the barrier
      const unsigned hb = words[lane];
      Acc v[kFlatLane];
      v[0] = lift(x[0]);
#pragma unroll
      for (unsigned k = 1; k < kFlatLane; ++k) v[k] = (hb >> k & 1u) ? lift(x[k]) : p.op(v[k - 1], lift(x[k]));
      Acc scan = v[kFlatLane - 1];
#pragma unroll
      for (unsigned q = 0; q < kFlatLane / kPerVector; ++q) {
        typename flat_warp_storage<Acc>::vector w;
#pragma unroll
        for (unsigned m = 0; m < kPerVector; ++m) w.e[m] = v[q * kPerVector + m];
        sm.table[q][lane] = w;
      }
      if (next != ~0u) load_share(base, next * kFlatRow + kFlatLane * lane, lo, hi, x);
      const unsigned heads = __ballot_sync(warp::kFullMask, hb != 0);
      const int start = 31 - __clz(int(heads & (warp::kFullMask >> (31 - lane))));  // the last head lane up to this
      const int reach = int(lane) - (start > 0 ? start : 0);
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const Acc other = __shfl_up_sync(warp::kFullMask, scan, d);
        if (d <= reach) scan = p.op(other, scan);
      }
      const Acc row_end = __shfl_sync(warp::kFullMask, scan, 31);
      const Acc left = __shfl_up_sync(warp::kFullMask, scan, 1);
      const bool head_before = (heads & ((1u << lane) - 1u)) != 0;
      sm.open_of[lane] = head_before ? left : lane == 0 ? carry : p.op(carry, left);
      carry = heads == 0 ? p.op(carry, row_end) : row_end;
      __syncwarp();
      const unsigned at = me.end - 1 - row_first;
      if (me.flat && at < kFlatRow) {
        const unsigned owner = at / kFlatLane, k = at % kFlatLane;
        Acc total = sm.table[k / kPerVector][owner].e[k % kPerVector];
        if (((words[owner] << (kFlatLane - 1 - k)) & 0xffffu) == 0) total = p.op(sm.open_of[owner], total);
        write(me.s, total, true);
      }
      r = next;
      turn ^= 1u;
    }
    __syncwarp();
    sm.heads[turn ^ 1][lane] = 0u;
    __syncwarp();
  }

  // The flat lanes' segments of [first, first + span) of the input, span < 2^31.
  __device__ __forceinline__ void fold_span(int64_t first, uint64_t span, bool flat, int64_t begin, uint64_t len,
                                            uint64_t s) const {
    constexpr uintptr_t kRowBytes = uintptr_t(kFlatRow) * sizeof(T);
    const T* at_first = p.source.in + first;
    // The row base by pointer arithmetic on the input, so that its loads stay global loads.
    const unsigned lo = unsigned(reinterpret_cast<uintptr_t>(at_first) % kRowBytes / sizeof(T));
    const T* base = at_first - lo;
    const unsigned mine = unsigned(begin - first) + lo;
    const flat_lane me{flat, mine, mine + unsigned(len), s};
    fold_rows(base, lo, lo + unsigned(span), me);
  }

  // A group's flat lanes (`flats`): in one pass where they are in order, apart and within 2^31
  // elements, else one by one.
  __device__ void fold_group(unsigned flats, bool flat, int64_t begin, uint64_t len, uint64_t s) const {
    const int64_t end = begin + int64_t(len);
    const int low = __ffs(int(flats)) - 1, high = 31 - __clz(int(flats));
    const int64_t first = __shfl_sync(warp::kFullMask, begin, low), last = __shfl_sync(warp::kFullMask, end, high);
    const unsigned below = flats & ((1u << lane) - 1u);
    const int before = below != 0 ? 31 - __clz(int(below)) : int(lane);
    const int64_t end_before = __shfl_sync(warp::kFullMask, end, before);
    const bool in_order = !flat || below == 0 || begin >= end_before;
    if (__all_sync(warp::kFullMask, in_order) && last - first < (int64_t(1) << 31)) {
      return fold_span(first, uint64_t(last - first), flat, begin, len, s);
    }
    for (unsigned rest = flats; rest != 0; rest &= rest - 1) {
      const int one = __ffs(int(rest)) - 1;
      const int64_t b = __shfl_sync(warp::kFullMask, begin, one);
      const uint64_t n = __shfl_sync(warp::kFullMask, len, one);
      fold_span(b, n, int(lane) == one, b, n, s);
    }
  }

  // Group g: lane i's segment 32·g + i (slot). True where the lane's segment is left to the
  // segments kernel.
  __device__ __forceinline__ bool run_group(uint64_t g, const segment_slot& slot) const {
    if (slot.len <= kFlatAloneMax) {
      T v[kFlatAloneMax];
      load_alone(slot, v);
      finish_short(g, slot, v);
    }
    const uint64_t s = g * 32 + lane;
    const bool flat = slot.len > kFlatAloneMax && slot.len <= kFlatMax;
    const unsigned flats = __ballot_sync(warp::kFullMask, flat);
    if (flats != 0) fold_group(flats, flat, slot.base, slot.len, s);
    return slot.len > kFlatMax;
  }
};

// Resident blocks per SM the registers allow, at least: 8-byte rows need more registers.
template <class Params>
inline constexpr unsigned flat_min_blocks = sizeof(typename Params::accumulator) == 8 ? 3 : kSegmentMinBlocks;

// Params: the segments kernel's (segments_params), whose source, segments, temp storage, output,
// init, operator, form and key it reads.
template <class Params>
__global__ void __launch_bounds__(kSegmentThreads, flat_min_blocks<Params>) flat_kernel(const Params p) {
  using Acc = typename Params::accumulator;
  using Source = typename Params::source_type;
  allow_dependent_launch();  // the segments kernel's blocks may start, and wait for this grid
  __shared__ flat_warp_storage<Acc> storage[kSegmentWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  flat_warp_storage<Acc>& sm = storage[warp];
  sm.heads[0][lane] = 0u;
  sm.heads[1][lane] = 0u;
  __syncwarp();
  const flat_warp<Params> w{p, sm, lane};
  const uint64_t warps = uint64_t(gridDim.x) * kSegmentWarps, groups = ceil_div(p.segments, 32);
  const auto read = [&](uint64_t g) {
    const uint64_t s = g * 32 + lane;
    return p.source.read(s < p.segments ? s : p.segments - 1);
  };
  // The next group's offsets are in flight while a group folds.
  uint64_t g = uint64_t(blockIdx.x) * kSegmentWarps + warp;
  typename Source::raw_slot next = g < groups ? read(g) : typename Source::raw_slot{};
  bool left = false;
  while (g < groups) {
    const typename Source::raw_slot mine = next;
    if (g + warps < groups) next = read(g + warps);
    const segment_slot slot = w.slot_in(g, mine);
    if (__ballot_sync(warp::kFullMask, slot.len > kFlatAloneMax) == 0) {
      g = w.run_short_groups(g, slot, next, warps, groups, read);
      continue;
    }
    left |= w.run_group(g, slot);
    g += warps;
  }
  if (__any_sync(warp::kFullMask, left) && lane == 0) {
    device_word(p.temp[kLeftoverWord]).store(flat_word(unsigned(p.key), kFlatLeftLong), cuda::memory_order_relaxed);
  }
}

}  // namespace warpfold::detail
