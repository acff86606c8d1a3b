// Prototypes of the flat fold for short CSR segments (docs/design.md, SG56, SG59 and SG73), timed
// against warpfold::segmented_reduce and a roofline probe in the same rounds. Float sums over 2^26
// elements with int32 CSR offsets (the shape "[0, 3], 30% empty" covers 2^22 of them, so the
// probe, which reads all 2^26, is no yardstick there), for mean segment lengths from about 1 to
// 8192; every output is checked against a double-precision sum. The input's length is a multiple
// of 4 and it starts on 16 bytes: rows are read in whole 16-byte vectors.
//
// The flat fold: a warp takes 32 consecutive segments at a time and streams their span as rows on
// fixed boundaries of the input. The starts of the segments it folds flat are its heads, marked as
// bits per lane in shared memory. Each lane folds its elements restarting at each head; a segmented
// scan across the lanes (five shuffles) carries the fold of a segment that crosses lanes, and the
// fold of the segment open at a row's end carries into the next row. Its cost is per element, not
// per segment. Segments of up to 8 elements are folded by the lane that reads their offsets, as
// the segments kernel folds them, so that their bits are segmented_reduce's. Every kernel keeps
// the library's rule: a segment's bits depend on its own place and length only.
//
// Three folds. closing (SG56): rows of 256 elements, lane L holding 8 of them; a head closes the
// segment before it, whose total goes to a table in shared memory at the head's place, where the
// segment's own lane reads it; the group's end is a head too. lean (SG59): the same rows; every
// lane stores the fold of its segment at each of its elements, and a segment's lane reads its
// total at its last element. wide (SG73): rows of 512, lane L holding 16 elements folded in
// place; the table is laid out vector-major, so that its stores meet no bank conflict; a lane's
// open value (the fold entering it from the left) and head bits stay in shared memory, where the
// reader adds the open value only if its last element precedes its lane's first head; the next
// row's loads go out as soon as the row is in the table; 32-bit indices. Its bounded form folds
// only segments of up to 128 elements and leaves the rest (the split a library would make, with
// the segments kernel taking the longer ones); it is timed alone and followed by a kernel that
// only waits for it (programmatic dependent launch) and exits, what a second launch costs.
//
// The program checks the rule by running the first shape again with empty segments put between
// its segments and comparing every nonempty segment's bits; it exits non-zero where an output is
// wrong or a kernel breaks the rule.
//
// It serves float sums with CSR offsets only, and its bits differ from the segments kernel's lane
// classes; SG56, SG58 and SG59 say what the library needs before it can take it, SG60 and SG73
// what stands in the way.
//
//   cmake --build build --target warpfold_flat_csr_probe
//   build/bench/warpfold_flat_csr_probe [--rounds N]

#include "bench_args.hpp"

#include <warpfold/segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
  std::exit(2);
}

constexpr unsigned kFullMask = 0xffffffffu;
constexpr unsigned kWarps = 8;              // per block of 256 threads
constexpr unsigned kLaneElements = 8;       // two float4 per lane
constexpr unsigned kRow = 32 * kLaneElements;  // elements per row
constexpr unsigned kRowVectors = kRow / 4;

// Lane L's two vectors of the row that starts at vector v0 of `in`, zero outside [lo, nvec).
__device__ __forceinline__ void load_row(const float4* in, unsigned v0, unsigned lo, unsigned nvec, unsigned lane,
                                         float4 (&x)[2]) {
#pragma unroll
  for (unsigned k = 0; k < 2; ++k) {
    const unsigned v = v0 + 2 * lane + k;
    x[k] = v >= lo && v < nvec ? in[v] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

// Segments of up to this many elements are folded by the lane that reads their offsets, element
// by element (the segments kernel's own rule for them), where the kernel keeps the rule. The flat
// fold would give the same bits for one within a lane's 8 elements, but the rows of a tile of such
// segments cost more than their scalar loads.
constexpr int kAloneMax = 8;
template <class Index>
__device__ __forceinline__ float fold_alone(const float* in, Index begin, Index end) {
  float v[kAloneMax];
#pragma unroll
  for (Index k = 0; k < kAloneMax; ++k) v[k] = begin + k < end ? in[begin + k] : 0.f;
  float acc = v[0];
#pragma unroll
  for (Index k = 1; k < kAloneMax; ++k)
    if (begin + k < end) acc += v[k];
  return acc;
}

// Elements of a row at the group's edge that lie outside [first, end) fold as 0.
__device__ __forceinline__ void clear_outside(float4 (&x)[2], unsigned element, unsigned first, unsigned end) {
  float* v = reinterpret_cast<float*>(x);
#pragma unroll
  for (unsigned k = 0; k < kLaneElements; ++k)
    if (element + k < first || element + k >= end) v[k] = 0.f;
}

// A row's lane fold and scan. hb: the lane's head bits (bit k: a segment starts at its element
// k). run[k] is the fold from the last head at or before k, or from the lane's start; open is the
// segment open at the lane's start (lane 0: the carry alone, no 0 added, which would turn a -0
// into +0 where a segment folded alone keeps it); row_end the fold of the row's last segment.
struct lane_row {
  float run[kLaneElements];
  unsigned heads;  // the lanes with a head
  float open, row_end;
};
__device__ __forceinline__ lane_row scan_row(const float4 (&x)[2], unsigned hb, unsigned lane, float carry) {
  const float* v = reinterpret_cast<const float*>(x);
  lane_row r;
  r.run[0] = v[0];
#pragma unroll
  for (unsigned k = 1; k < kLaneElements; ++k) r.run[k] = (hb >> k & 1u) ? v[k] : r.run[k - 1] + v[k];
  r.heads = __ballot_sync(kFullMask, hb != 0);
  const int start = 31 - __clz(int(r.heads & (kFullMask >> (31 - lane))));  // last head lane up to this one
  const int reach = int(lane) - (start > 0 ? start : 0);                    // lanes to its left in its segment
  float scan = r.run[kLaneElements - 1];
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const float other = __shfl_up_sync(kFullMask, scan, d);
    if (d <= reach) scan = other + scan;
  }
  r.row_end = __shfl_sync(kFullMask, scan, 31);
  const float left = __shfl_up_sync(kFullMask, scan, 1);  // lanes before this one in its segment
  const bool head_before = (r.heads & ((1u << lane) - 1u)) != 0;
  r.open = head_before ? left : lane == 0 ? carry : carry + left;
  return r;
}

// One row, closing at heads: a head's closing (the total of the segment it ends) goes to the
// head's place in `closing`, the table at the lane's first element. carry: the fold of the segment
// open at the row's start, then at its end.
__device__ __forceinline__ void fold_row(const float4 (&x)[2], unsigned hb, unsigned lane, float* closing, float& carry) {
  const lane_row r = scan_row(x, hb, lane, carry);
  if (r.heads == 0) {
    carry = carry + r.row_end;
    return;
  }
  if (hb & 1u) closing[0] = r.open;
#pragma unroll
  for (unsigned k = 1; k < kLaneElements; ++k) {
    const float total = (hb & ((1u << k) - 1u)) ? r.run[k - 1] : r.open + r.run[k - 1];
    if (hb >> k & 1u) closing[k] = total;
  }
  carry = r.row_end;
}

// One row, lean: every lane stores the fold of its segment at each of its elements (two 16-byte
// stores to `prefix`), so that a segment's total is read at its last element. No closing per
// head, no head at a segment's end, every store unconditional.
__device__ __forceinline__ void fold_row_lean(const float4 (&x)[2], unsigned hb, unsigned lane, float4* prefix,
                                              float& carry) {
  const lane_row r = scan_row(x, hb, lane, carry);
  const unsigned first_head = hb != 0 ? unsigned(__ffs(int(hb))) - 1 : kLaneElements;
  float q[kLaneElements];
#pragma unroll
  for (unsigned k = 0; k < kLaneElements; ++k) q[k] = k < first_head ? r.open + r.run[k] : r.run[k];
  prefix[0] = make_float4(q[0], q[1], q[2], q[3]);
  prefix[1] = make_float4(q[4], q[5], q[6], q[7]);
  carry = r.heads == 0 ? carry + r.row_end : r.row_end;
}

// A head at `place` of the row (none where it lies outside the row): bit place % 8 of its lane's word.
__device__ __forceinline__ void mark_head(unsigned* words, unsigned place) {
  if (place < kRow) atomicOr(&words[place / kLaneElements], 1u << (place % kLaneElements));
}

// Lane i of a group: segment 32·g + i's offsets (the last segment's end where past the last), as
// Offset; Count: the type of the segment count and indices (the wide fold's are 32-bit).
template <class Offset>
struct group_offsets {
  Offset begin = 0, end = 0;
};
template <class Offset, class Count>
__device__ __forceinline__ group_offsets<Offset> read_group(const int* offsets, Count segments, Count group, unsigned lane) {
  const Count s = group * 32 + lane;
  return {offsets[s < segments ? s : segments], offsets[s < segments ? s + 1 : segments]};
}

// The two folds on rows of 256. closing: rows on 256-element boundaries of `in`, the group's end a
// head as well. lean: fold_row_lean, only the starts of segments folded flat are heads, each total
// read at its last element.
enum class fold_mode { closing, lean };

template <fold_mode Mode>
__global__ void __launch_bounds__(kWarps * 32, 4)
    flat_kernel(const float* in, const int* offsets, uint64_t segments, float* out) {
  constexpr bool kLean = Mode == fold_mode::lean;
  __shared__ float4 tables[kWarps][kRow / 4];
  __shared__ unsigned head_words[kWarps][32];  // per lane of the row: its head bits
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float4* table = tables[warp];
  float* table_elements = reinterpret_cast<float*>(table);
  unsigned* words = head_words[warp];
  words[lane] = 0u;
  __syncwarp();
  const uint64_t warps = uint64_t(gridDim.x) * kWarps, groups = (segments + 31) / 32;
  uint64_t g = uint64_t(blockIdx.x) * kWarps + warp;
  group_offsets<long long> next = g < groups ? read_group<long long>(offsets, segments, g, lane) : group_offsets<long long>{};
  for (; g < groups; g += warps) {
    const group_offsets<long long> mine = next;
    if (g + warps < groups) next = read_group<long long>(offsets, segments, g + warps, lane);  // in flight meanwhile
    const uint64_t s = g * 32 + lane;
    const bool nonempty = s < segments && mine.end > mine.begin;
    const bool alone = nonempty && mine.end - mine.begin <= kAloneMax;
    if (s < segments && !nonempty) out[s] = 0.f;
    if (alone) out[s] = fold_alone(in, mine.begin, mine.end);
    const bool flat = nonempty && !alone;
    if (__ballot_sync(kFullMask, flat) == 0) continue;
    // Places relative to the group's first row: 32 bits.
    const long long first = __shfl_sync(kFullMask, mine.begin, 0), end = __shfl_sync(kFullMask, mine.end, 31);
    const long long base = first / kRow * kRow;
    const float4* span = reinterpret_cast<const float4*>(in + base);
    const unsigned nvec = unsigned((end - base + 3) / 4), rel_first = unsigned(first - base),
                   rel_end = unsigned(end - base), my_begin = unsigned(mine.begin - base),
                   my_end = unsigned(mine.end - base), lo = rel_first / 4;
    float carry = 0.f;
    float4 rows[2][2];
    load_row(span, 0, lo, nvec, lane, rows[0]);
    // Row v0 from rows[cur], the next row's loads in flight meanwhile into rows[cur ^ 1]: the lean
    // loop folds the next row from there, the closing loops copy it back. Closing: the group's end
    // is a head too, so that every segment closes at a head, the last one included; where the end
    // starts a row, that row would hold nothing but the head, and its closing, the carry as at any
    // row's first element, is taken after the rows.
    const auto step = [&](unsigned v0, unsigned cur) {
      load_row(span, v0 + kRowVectors, lo, nvec, lane, rows[cur ^ 1]);
      const unsigned row_first = 4 * v0;
      if (kLean ? flat : nonempty) mark_head(words, my_begin - row_first);
      if (!kLean && lane == 31) mark_head(words, rel_end - row_first);
      __syncwarp();
      const unsigned hb = words[lane];
      words[lane] = 0u;
      if constexpr (kLean) {
        fold_row_lean(rows[cur], hb, lane, table + 2 * lane, carry);
      } else {
        if (row_first < rel_first || row_first + kRow > rel_end)
          clear_outside(rows[cur], row_first + kLaneElements * lane, rel_first, rel_end);
        fold_row(rows[cur], hb, lane, table_elements + kLaneElements * lane, carry);
      }
      __syncwarp();
      const unsigned read_at = kLean ? my_end - 1 - row_first : my_end - row_first;
      if (flat && read_at < kRow) out[s] = table_elements[read_at];
      __syncwarp();
    };
    if constexpr (kLean) {
      for (unsigned v0 = 0; v0 < nvec; v0 += 2 * kRowVectors) {
        step(v0, 0);
        if (v0 + kRowVectors < nvec) step(v0 + kRowVectors, 1);
      }
    } else {  // the closing folds' loop: the next row copied in
      for (unsigned v0 = 0; v0 < nvec; v0 += kRowVectors) {
        step(v0, 0);
        rows[0][0] = rows[1][0];
        rows[0][1] = rows[1][1];
      }
    }
    if (!kLean && flat && my_end == rel_end && rel_end % kRow == 0) out[s] = carry;
  }
}

// The wide fold (SG73): rows of 512 elements, lane L holding elements 16L … 16L + 15.
constexpr unsigned kWideLane = 16;
constexpr unsigned kWideVectors = kWideLane / 4;
constexpr unsigned kWideRow = 32 * kWideLane;
constexpr unsigned kWideRowVectors = kWideRow / 4;
constexpr int kBoundedMax = 128;  // the bounded form's longest segment

// Lane L's vectors of the row at vector v0 of `span`; outside [lo, nvec) zero, where the row
// reaches past either end.
__device__ __forceinline__ void load_wide_row(const float4* __restrict__ span, unsigned v0, unsigned lo, unsigned nvec,
                                              unsigned lane, float4 (&x)[kWideVectors]) {
  const bool inside = v0 >= lo && v0 + kWideRowVectors <= nvec;
#pragma unroll
  for (unsigned k = 0; k < kWideVectors; ++k) {
    const unsigned v = v0 + kWideVectors * lane + k;
    x[k] = inside || (v >= lo && v < nvec) ? span[v] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

// A warp's shared memory for the wide fold: the row's values, vector-major (vector k of lane L
// at k·32 + L); each lane's open value; its head bits, in two buffers used by turns, so that a row
// clears the buffer of the row before after its first barrier.
struct wide_shared {
  float4* table;
  float* open_of;
  unsigned (*heads)[32];
};

struct wide_slot {
  int begin = 0, end = 0;
  unsigned s = 0;
  bool flat = false;
};

// The group's segments folded flat (slot.flat), its span streamed row by row.
__device__ __forceinline__ void fold_wide_group(const float* __restrict__ in, float* __restrict__ out, const wide_slot slot,
                                                unsigned flats, unsigned lane, const wide_shared sm) {
  const unsigned first = unsigned(__shfl_sync(kFullMask, slot.begin, __ffs(int(flats)) - 1));
  const unsigned end = unsigned(__shfl_sync(kFullMask, slot.end, 31 - __clz(int(flats))));
  const unsigned base = first / kWideRow * kWideRow;
  const float4* span = reinterpret_cast<const float4*>(in + base);
  const unsigned nvec = (end - base + 3) / 4, lo = (first - base) / 4, my_begin = unsigned(slot.begin) - base,
                 my_end = unsigned(slot.end) - base;
  const float* table_elements = reinterpret_cast<const float*>(sm.table);
  float carry = 0.f;
  float4 row[kWideVectors];
  load_wide_row(span, 0, lo, nvec, lane, row);
  unsigned turn = 0;
  for (unsigned v0 = 0; v0 < nvec; v0 += kWideRowVectors, turn ^= 1u) {
    const unsigned row_first = 4 * v0, place = my_begin - row_first;
    unsigned* words = sm.heads[turn];
    if (slot.flat && place < kWideRow) atomicOr(&words[place / kWideLane], 1u << (place % kWideLane));
    __syncwarp();
    sm.heads[turn ^ 1][lane] = 0u;  // the row before's: its readers are past the barrier
    const unsigned hb = words[lane];
    float* v = reinterpret_cast<float*>(row);
#pragma unroll
    for (unsigned k = 1; k < kWideLane; ++k) v[k] = (hb >> k & 1u) ? v[k] : v[k - 1] + v[k];
    float scan = v[kWideLane - 1];
#pragma unroll
    for (unsigned k = 0; k < kWideVectors; ++k) sm.table[k * 32 + lane] = row[k];
    if (v0 + kWideRowVectors < nvec) load_wide_row(span, v0 + kWideRowVectors, lo, nvec, lane, row);
    const unsigned heads = __ballot_sync(kFullMask, hb != 0);
    const int start = 31 - __clz(int(heads & (kFullMask >> (31 - lane))));
    const int reach = int(lane) - (start > 0 ? start : 0);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const float other = __shfl_up_sync(kFullMask, scan, d);
      if (d <= reach) scan = other + scan;
    }
    const float row_end = __shfl_sync(kFullMask, scan, 31);
    const float left = __shfl_up_sync(kFullMask, scan, 1);
    const bool head_before = (heads & ((1u << lane) - 1u)) != 0;
    sm.open_of[lane] = head_before ? left : lane == 0 ? carry : carry + left;
    carry = heads == 0 ? carry + row_end : row_end;
    __syncwarp();
    const unsigned at = my_end - 1 - row_first;
    if (slot.flat && at < kWideRow) {
      const unsigned owner = at / kWideLane, k = at % kWideLane;
      float total = table_elements[((k / 4) * 32 + owner) * 4 + k % 4];
      if (((words[owner] << (kWideLane - 1 - k)) & 0xffffu) == 0) total = sm.open_of[owner] + total;
      out[slot.s] = total;
    }
  }
  __syncwarp();
  sm.heads[turn ^ 1][lane] = 0u;
  __syncwarp();
}

// Bounded: only segments of up to kBoundedMax elements, the longer ones left unwritten; the kernel
// lets a dependent launch start at once (it waits for this grid's end before it reads anything).
template <bool Bounded>
__global__ void __launch_bounds__(kWarps * 32, 4)
    wide_kernel(const float* __restrict__ in, const int* __restrict__ offsets, unsigned segments, float* __restrict__ out) {
  if constexpr (Bounded) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
  }
  __shared__ float4 tables[kWarps][kWideRow / 4];
  __shared__ float opens[kWarps][32];
  __shared__ unsigned head_words[kWarps][2][32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const wide_shared sm{tables[warp], opens[warp], head_words[warp]};
  head_words[warp][0][lane] = 0u;
  head_words[warp][1][lane] = 0u;
  __syncwarp();
  const unsigned warps = gridDim.x * kWarps, groups = (segments + 31) / 32;
  unsigned g = blockIdx.x * kWarps + warp;
  group_offsets<int> next = g < groups ? read_group<int>(offsets, segments, g, lane) : group_offsets<int>{};
  for (; g < groups; g += warps) {
    wide_slot slot{next.begin, next.end, g * 32 + lane, false};
    if (g + warps < groups) next = read_group<int>(offsets, segments, g + warps, lane);  // in flight meanwhile
    const int length = slot.s < segments ? slot.end - slot.begin : 0;
    if (slot.s < segments && length <= 0) out[slot.s] = 0.f;
    if (length > 0 && length <= kAloneMax) out[slot.s] = fold_alone(in, slot.begin, slot.end);
    slot.flat = length > kAloneMax && (!Bounded || length <= kBoundedMax);
    const unsigned flats = __ballot_sync(kFullMask, slot.flat);
    if (flats != 0) fold_wide_group(in, out, slot, flats, lane, sm);
  }
}

// The second launch of a split call with nothing left for it: waits for the grid before it, reads
// one word and exits.
__global__ void __launch_bounds__(kWarps * 32) tail_kernel(const unsigned* flag, unsigned* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  __shared__ unsigned seen;
  if (threadIdx.x == 0) seen = *flag;
  __syncthreads();
  if (seen == 0x12345678u) *sink = seen;
}

// The roofline probe: reads the input and the offsets and writes the outputs, as 16-byte vectors.
__global__ void roof_kernel(const float4* in, uint64_t vectors, const int4* offsets, uint64_t offset_vectors, float4* out,
                            uint64_t out_vectors, float* sink) {
  float acc = 0.f;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const float4 v = in[i];
    acc += (v.x + v.y) + (v.z + v.w);
    if (i < offset_vectors) {
      const int4 o = offsets[i];
      acc += float(o.x ^ o.y ^ o.z ^ o.w);
    }
    if (i < out_vectors) out[i] = make_float4(acc, acc, acc, acc);
  }
  if (acc == 1234.5f) *sink = acc;
}

using lengths = std::vector<uint64_t>;
lengths equal(uint64_t segments, uint64_t len) { return lengths(segments, len); }
// Lengths drawn from [lo, hi] (a share of them 0) until they cover `total` elements.
lengths uniform(uint64_t total, uint64_t lo, uint64_t hi, uint64_t seed, double empty_share = 0) {
  std::mt19937_64 gen(seed);
  lengths out;
  uint64_t sum = 0;
  while (sum < total) {
    uint64_t len = lo + gen() % (hi - lo + 1);
    if (double(gen() % 1000) < empty_share * 1000) len = 0;
    len = std::min(len, total - sum);
    out.push_back(len);
    sum += len;
  }
  return out;
}
// The same segments with an empty one after about every third: each nonempty segment keeps its
// place in the input and its elements, and its neighbours in a group of 32 change.
lengths with_empties(const lengths& lens, uint64_t seed) {
  std::mt19937_64 gen(seed);
  lengths out;
  for (uint64_t len : lens) {
    out.push_back(len);
    if (gen() % 3 == 0) out.push_back(0);
  }
  return out;
}

struct shape {
  std::string name;
  lengths lens;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The calls whose outputs are checked, then those only timed: the bounded wide fold followed by
// the tail kernel (a split call's two launches), and the roofline probe.
enum call_id { k_warpfold, k_closing, k_lean, k_wide, k_bounded, k_checked, k_split = k_checked, k_roof, k_timed };
const char* const kCallNames[k_timed] = {"warpfold", "closing", "lean", "wide", "wide<=128", "+tail", "roof"};

// What every shape's run shares: the input, a stream, events and the grids.
struct bench_context {
  uint64_t n = 0;
  std::vector<float> host;
  float* in = nullptr;
  float* sink = nullptr;
  unsigned* flag = nullptr;
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  unsigned flat_grid = 0, wide_grid = 0, roof_grid = 0;
};

// The outputs of the checked calls for one set of lengths, the times (µs per call) of every call
// where rounds > 0, and how many outputs of each checked call are wrong (the bounded form's only
// among segments of up to kBoundedMax elements, the longer ones being left to another kernel).
struct shape_run {
  std::vector<float> out[k_checked];
  float us[k_timed] = {};
  int wrong[k_checked] = {};
  int short_bits = 0;  // segments of up to kAloneMax elements whose bits a flat fold and segmented_reduce differ in
};

// Whether a checked call writes a segment of len elements: all do, but the bounded form.
bool folds(int which, uint64_t len) { return which != k_bounded || len <= uint64_t(kBoundedMax); }

// The tail kernel as the second launch of a split call: programmatic dependent launch, so that it
// is launched while the wide kernel runs and waits in cudaGridDependencySynchronize.
void launch_tail(const bench_context& se) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(se.flat_grid);
  config.blockDim = dim3(kWarps * 32);
  config.stream = se.stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(cudaLaunchKernelEx(&config, tail_kernel, static_cast<const unsigned*>(se.flag), se.flag + 1), "tail launch");
}

shape_run run_shape(const bench_context& se, const lengths& lens, int rounds) {
  const uint64_t segments = lens.size();
  std::vector<int> off(segments + 1, 0);
  for (uint64_t i = 0; i < segments; ++i) off[i + 1] = int(off[i] + lens[i]);
  int* d_off = nullptr;
  float* d_out[k_checked] = {};
  check(cudaMalloc(&d_off, off.size() * sizeof(int)), "cudaMalloc");
  check(cudaMemcpy(d_off, off.data(), off.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
  for (float*& o : d_out) {
    check(cudaMalloc(&o, segments * sizeof(float)), "cudaMalloc");
    check(cudaMemset(o, 0xff, segments * sizeof(float)), "cudaMemset");
  }
  size_t bytes = 0;
  check(warpfold::segmented_reduce(nullptr, bytes, se.in, d_out[0], segments, d_off, d_off + 1, warpfold::plus{}, 0.0f,
                                   se.stream),
        "segmented_reduce size");
  void* temp = nullptr;
  check(cudaMalloc(&temp, bytes), "cudaMalloc");
  if (segments > (uint64_t(1) << 31) - 32) {
    std::fprintf(stderr, "the wide fold takes fewer than 2^31 - 32 segments (32-bit places)\n");
    std::exit(2);
  }
  const unsigned narrow_segments = unsigned(segments);
  const auto call = [&](int which) {
    const unsigned block = kWarps * 32;
    switch (which) {
      case k_warpfold: {
        size_t b = bytes;
        check(warpfold::segmented_reduce(temp, b, se.in, d_out[0], segments, d_off, d_off + 1, warpfold::plus{}, 0.0f,
                                         se.stream),
              "segmented_reduce");
        break;
      }
      case k_closing:
        flat_kernel<fold_mode::closing><<<se.flat_grid, block, 0, se.stream>>>(se.in, d_off, segments, d_out[which]);
        break;
      case k_lean:
        flat_kernel<fold_mode::lean><<<se.flat_grid, block, 0, se.stream>>>(se.in, d_off, segments, d_out[which]);
        break;
      case k_wide:
        wide_kernel<false><<<se.wide_grid, block, 0, se.stream>>>(se.in, d_off, narrow_segments, d_out[which]);
        break;
      case k_bounded:
        wide_kernel<true><<<se.wide_grid, block, 0, se.stream>>>(se.in, d_off, narrow_segments, d_out[which]);
        break;
      case k_split:
        wide_kernel<true><<<se.wide_grid, block, 0, se.stream>>>(se.in, d_off, narrow_segments, d_out[k_bounded]);
        launch_tail(se);
        break;
      default:  // its outputs land in the bounded form's buffer, read back before any timing
        roof_kernel<<<se.roof_grid, 256, 0, se.stream>>>(reinterpret_cast<const float4*>(se.in), se.n / 4,
                                                         reinterpret_cast<const int4*>(d_off), (segments + 1) / 4,
                                                         reinterpret_cast<float4*>(d_out[k_bounded]), segments / 4, se.sink);
    }
    check(cudaGetLastError(), "launch");
  };
  shape_run r;
  for (int which = 0; which < k_checked; ++which) call(which);
  check(cudaStreamSynchronize(se.stream), "first calls");
  for (int which = 0; which < k_checked; ++which) {
    r.out[which].resize(segments);
    check(cudaMemcpy(r.out[which].data(), d_out[which], segments * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  for (uint64_t i = 0; i < segments; ++i) {
    double sum = 0, magnitude = 0;
    for (int k = off[i]; k < off[i + 1]; ++k) {
      sum += se.host[k];
      magnitude += std::fabs(se.host[k]);
    }
    for (int which = 0; which < k_checked; ++which) {
      if (!folds(which, lens[i])) continue;
      r.wrong[which] += !(std::fabs(r.out[which][i] - sum) <= 1e-5 * magnitude + 1e-6);
      if (which != k_warpfold && lens[i] <= uint64_t(kAloneMax))
        r.short_bits += std::memcmp(&r.out[k_warpfold][i], &r.out[which][i], sizeof(float)) != 0;
    }
  }
  std::vector<float> times[k_timed];
  for (int round = 0; round < rounds + 2; ++round) {
    for (int which = 0; which < k_timed; ++which) {
      check(cudaEventRecord(se.start, se.stream), "cudaEventRecord");
      for (int k = 0; k < 10; ++k) call(which);
      check(cudaEventRecord(se.stop, se.stream), "cudaEventRecord");
      check(cudaEventSynchronize(se.stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, se.start, se.stop), "cudaEventElapsedTime");
      if (round >= 2) times[which].push_back(ms * 100.0f);  // µs per call; two warm-up turns
    }
  }
  for (int which = 0; rounds > 0 && which < k_timed; ++which) r.us[which] = median(times[which]);
  check(cudaFree(d_off), "cudaFree");
  for (float* o : d_out) check(cudaFree(o), "cudaFree");
  check(cudaFree(temp), "cudaFree");
  return r;
}

// Of the nonempty segments of `lens`, how many give other bits once empty segments are put between
// them (with_empties), per call: zero where a segment's bits depend on itself alone.
// Returns how many outputs of the two runs are wrong.
int check_bits(const bench_context& se, const lengths& lens, int (&differ)[k_checked]) {
  const lengths spread = with_empties(lens, 13);
  const shape_run a = run_shape(se, lens, 0), b = run_shape(se, spread, 0);
  int wrong = a.short_bits + b.short_bits;
  for (int which = 0; which < k_checked; ++which) wrong += a.wrong[which] + b.wrong[which];
  for (int which = 0; which < k_checked; ++which) {
    differ[which] = 0;
    uint64_t j = 0;
    for (uint64_t i = 0; i < lens.size(); ++i, ++j) {
      while (spread[j] != lens[i]) ++j;  // past the empties put in (a 0 may pair with one: not compared)
      uint32_t x, y;
      std::memcpy(&x, &a.out[which][i], 4);
      std::memcpy(&y, &b.out[which][j], 4);
      differ[which] += lens[i] > 0 && folds(which, lens[i]) && x != y;
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 10;
  if (!warpfold_bench::parse_rounds(argc, argv, 1, 10000, rounds)) {
    std::fprintf(stderr, "usage: %s [--rounds N]   (N: timed turns of 10 calls, 1 to 10000; default 10)\n", argv[0]);
    return 2;
  }
  bench_context se;
  se.n = uint64_t(1) << 26;
  int device = 0, sms = 0, per_sm = 0, wide_per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flat_kernel<fold_mode::lean>, kWarps * 32, 0), "occupancy");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wide_per_sm, wide_kernel<false>, kWarps * 32, 0), "occupancy");
  se.flat_grid = unsigned(sms * per_sm);
  se.wide_grid = unsigned(sms * wide_per_sm);
  se.roof_grid = unsigned(sms) * 8;
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("%s: float sums over 2^26 elements, int32 CSR offsets; medians of %d turns of 10 calls (us); "
              "blocks per SM: rows of 256 %d, wide %d\n",
              prop.name, rounds, per_sm, wide_per_sm);
  const std::vector<shape> shapes = {
      {"uniform [0, 128]", uniform(se.n, 0, 128, 7)},       {"[1, 128], 10% empty", uniform(se.n, 1, 128, 9, 0.1)},
      {"equal 16", equal(se.n / 16, 16)},                   {"equal 64", equal(se.n / 64, 64)},
      {"equal 128", equal(se.n / 128, 128)},                {"uniform [0, 512]", uniform(se.n, 0, 512, 3)},
      {"uniform [0, 8]", uniform(se.n, 0, 8, 5)},           {"equal 4", equal(se.n / 4, 4)},
      {"[0, 3], 30% empty", uniform(se.n / 16, 0, 3, 4, 0.3)}, {"equal 8192", equal(se.n / 8192, 8192)},
      {"uniform [0, 8192]", uniform(se.n, 0, 8192, 6)},
  };
  std::mt19937_64 gen(11);
  se.host.resize(se.n);
  for (float& v : se.host) v = float(double(gen() >> 11) * 0x1.0p-52 - 1.0);
  check(cudaMalloc(&se.in, se.n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&se.sink, sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&se.flag, 2 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMemset(se.flag, 0, 2 * sizeof(unsigned)), "cudaMemset");
  check(cudaMemcpy(se.in, se.host.data(), se.n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaStreamCreate(&se.stream), "cudaStreamCreate");
  check(cudaEventCreate(&se.start), "cudaEventCreate");
  check(cudaEventCreate(&se.stop), "cudaEventCreate");
  std::printf("%-22s %9s", "shape", "segments");
  for (const char* name : kCallNames) std::printf(" %9s", name);
  std::printf(" %9s %9s  wrong per checked call, short bits\n", "wide/wf", "roof/wide");
  int wrong_rows = 0;
  for (const shape& sh : shapes) {
    const shape_run r = run_shape(se, sh.lens, rounds);
    int wrong = r.short_bits;
    std::printf("%-22s %9zu", sh.name.c_str(), sh.lens.size());
    for (float us : r.us) std::printf(" %9.2f", us);
    std::printf(" %9.3f %9.3f ", r.us[k_wide] / r.us[k_warpfold], r.us[k_roof] / r.us[k_wide]);
    for (int w : r.wrong) {
      std::printf(" %d", w);
      wrong += w;
    }
    std::printf("  %d\n", r.short_bits);
    wrong_rows += wrong > 0;
  }
  // The reproducibility rule: a segment's bits do not change with its neighbours. Checked on
  // lengths up to 128 and up to 512, whose segments cross rows.
  int differing = 0;
  for (const char* name : {"uniform [0, 128]", "uniform [0, 512]"}) {
    const shape* sh = &*std::find_if(shapes.begin(), shapes.end(), [&](const shape& x) { return x.name == name; });
    int differ[k_checked];
    wrong_rows += check_bits(se, sh->lens, differ) > 0;
    std::printf("nonempty segments of %s whose bits change with empty segments put between them:", sh->name.c_str());
    for (int which = 0; which < k_checked; ++which) {
      std::printf(" %s %d", kCallNames[which], differ[which]);
      differing += differ[which];
    }
    std::printf("\n");
  }
  if (wrong_rows > 0) std::fprintf(stderr, "%d shapes with wrong results or short segments' bits unlike segmented_reduce's\n", wrong_rows);
  return wrong_rows > 0 || differing > 0 ? 1 : 0;
}
