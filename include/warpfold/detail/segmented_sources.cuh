#pragma once
// Where the segments kernel finds segment s: a pair of offsets (segmented_reduce), or a row of a
// strided tensor (the fixed-size segmented_reduce and reduce_axis). A source gives the slot
// (element offset and length) of a segment, and the segment as a range; read and slot_of split
// slot into its memory reads and the rest.

#include <warpfold/detail/segmented_fold.cuh>

#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

// Offsets as 64-bit element positions, clamped to [0, n] where the caller gave the input's length.
template <class Offset>
__device__ __forceinline__ uint64_t clamped_offset(Offset x, uint64_t n) {
  if constexpr (std::is_signed_v<Offset>) {
    if (x < 0) return 0;
  }
  const uint64_t u = uint64_t(x);
  return u < n ? u : n;
}

// Segment s is [begin[s], end[s]) of d_in, empty where end <= begin. With `clamps`, both offsets
// are first clamped to [0, n] (an end of n is the input's end), so that no read leaves the input.
template <class T, class Offset>
struct offsets_source {
  using element = T;
  using view = contiguous_segment<T>;
  static constexpr bool kRowsAlike = false;  // lengths only the device sees
  const T* in;
  const Offset* begin;
  const Offset* end;
  uint64_t n;
  bool clamps;

  // What slot() reads from memory, apart from what it computes, so that a caller can have
  // several slots' reads in flight at once.
  struct raw_slot {
    Offset b, e;
  };
  __device__ __forceinline__ raw_slot read(uint64_t s) const { return {begin[s], end[s]}; }
  __device__ __forceinline__ segment_slot slot(uint64_t s) const { return slot_of(read(s)); }
  __device__ __forceinline__ segment_slot slot_of(const raw_slot& r) const {
    const Offset b = r.b, e = r.e;
    if (clamps) {
      const uint64_t cb = clamped_offset(b, n), ce = clamped_offset(e, n);
      return {int64_t(cb), ce > cb ? ce - cb : 0};
    }
    return {int64_t(b), e > b ? uint64_t(e) - uint64_t(b) : 0};
  }
  __device__ __forceinline__ view view_of(const segment_slot& s) const { return {in + s.base, s.len}; }
};

// Segment s is the row (o, i) = (s / inner, s % inner) of an [outer][axis][inner] tensor: axis
// elements from o·outer_stride + i·inner_stride, `axis_stride` apart (1 unless Strided). The
// fixed-size segmented_reduce is the case inner = 1, outer_stride = segment_size.
template <class T, bool Strided>
struct rows_source {
  using element = T;
  using view = std::conditional_t<Strided, strided_segment<T>, contiguous_segment<T>>;
  static constexpr bool kRowsAlike = true;  // every row `axis` long
  const T* in;
  uint64_t axis, inner;
  int64_t outer_stride, inner_stride, axis_stride;

  using raw_slot = uint64_t;  // a row's position is computed: nothing to read
  __device__ __forceinline__ raw_slot read(uint64_t s) const { return s; }
  __device__ __forceinline__ segment_slot slot_of(raw_slot s) const { return slot(s); }
  __device__ __forceinline__ segment_slot slot(uint64_t s) const {
    const uint64_t o = inner == 1 ? s : s / inner;
    const uint64_t i = inner == 1 ? 0 : s - o * inner;
    return {int64_t(o) * outer_stride + int64_t(i) * inner_stride, axis};
  }
  __device__ __forceinline__ view view_of(const segment_slot& s) const {
    if constexpr (Strided) {
      return {in + s.base, axis_stride, s.len};
    } else {
      return {in + s.base, s.len};
    }
  }
};

}  // namespace warpfold::detail
