#pragma once
// warpfold::segmented_reduce — one reduction per segment of an array: a sum per row, a loss per
// sample, a GROUP BY over sorted keys.
//
//   size_t bytes = 0;
//   warpfold::segmented_reduce(nullptr, bytes, d_in, d_out, num_segments, d_begin, d_end,
//                              warpfold::plus{}, 0.0f);  // query
//   cudaMalloc(&d_temp, bytes);
//   warpfold::segmented_reduce(d_temp, bytes, d_in, d_out, num_segments, d_begin, d_end,
//                              warpfold::plus{}, 0.0f, stream);
//
// Segment s is d_in[d_begin[s], d_end[s]); d_out[s] is op(init, its elements), as warpfold::reduce
// (reduce.cuh) would give for it alone. Arguments in CUB's order (cub::DeviceSegmentedReduce):
// temp storage, input, output, number of segments, begin and end offsets, operator, initial value,
// stream. For CSR offsets (n + 1 of them) pass d_end = d_begin + 1.
//
// * Offsets: 32- or 64-bit integers (int32_t, int64_t). num_segments is 64-bit: more than 2^31
//   segments and more than 2^32 elements in all work.
// * An empty segment gives init, and so does one whose end is at or before its begin (CUB's rule).
// * Types, operators and the accumulator (the type of init) as reduce: any trivially copyable
//   accumulator of at most 64 bytes, any associative and commutative operator, the operators of
//   ops.cuh with their documented NaN and infinity behaviour.
// * Bounds: the offsets are not checked against the input, which this signature cannot see; an
//   offset past the input reads past it, as with CUB. The overload that takes the input's length
//   (num_items, after d_in) clamps every offset to [0, num_items] first, so that no offset can read
//   outside the input. Knowing the length, a call of few segments over a small input also
//   launches fewer blocks, which makes it the faster call there.
// * Segments of one size, back to back, need no offsets: the overload with segment_size.
// * segmented_argmin / segmented_argmax: the extreme element of each segment and its index within
//   the segment (the first among equals; NaN counts as most extreme, as for argmin); an empty
//   segment gives {T{}, 0}.
// * Reproducible: a segment's fold order depends on its length, its alignment and the device (its
//   grid), and on the call's size: a call of 2^17 segments or more with offsets, of the types the
//   flat kernel folds (below), folds its segments of 9 to 512 elements in another order than a
//   smaller call, one that depends on their address modulo 512 elements; and a segment long
//   enough to be cut into pieces (six tiles of 16 KiB or more) is cut by the input's length where
//   the call gives it, else by the number of segments. Never on the other segments' values or
//   lengths, nor on which block took which part of it, so the same call gives the same bits run to
//   run (docs/segmented.md describes the regimes).
// * Temp storage: its size depends on the types, the operator, the device, and for the overloads
//   that know the input's length (num_items, segment_size), on that length; never on the offsets'
//   values. It needs no initialisation; two calls running at once need two. Long segments are
//   shared by the whole grid through it: without the input's length it holds 32 segments shared
//   grid-wide at once, and a long segment beyond those is reduced by one block (the same bits,
//   more slowly); with the length, every long segment fits.
// * Asynchronous on `stream`: one kernel launch, two for a call with offsets of 2^17 segments or
//   more whose elements are a 4- or 8-byte arithmetic type folded into that same type (the flat
//   kernel first; in a CUDA graph capture, a memset node before them).
// * A misuse (temp storage shared by two calls at once, freed or overwritten during the call) ends
//   instead of hanging, as for reduce: warpfold::last_combine_status(d_temp) then reports it.
//
// Errors are returned as cudaError_t: cudaErrorInvalidValue for a null d_out or offsets pointer
// with segments, a null d_in with segments (unless num_items or segment_size is 0), too little temp
// storage, or num_segments × segment_size beyond 64 bits; cudaErrorMisalignedAddress for a pointer
// not aligned to its type or temp storage not aligned to 8 bytes; and any launch error.

#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/detail/segmented_dispatch.cuh>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>
#include <warpfold/reduce.cuh>

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace warpfold {

// Reduces d_in[d_begin[s], d_end[s]) into d_out[s] for every s < num_segments.
template <class T, class Acc, class Offset, class Op>
cudaError_t segmented_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t num_segments,
                             const Offset* d_begin_offsets, const Offset* d_end_offsets, Op op, Acc init,
                             cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, false, 0, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, init, op, detail::convert<identity>{}, stream);
}

// The same over an input of num_items elements: every offset is clamped to [0, num_items] first.
template <class T, class Acc, class Offset, class Op>
cudaError_t segmented_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, uint64_t num_items, Acc* d_out,
                             uint64_t num_segments, const Offset* d_begin_offsets, const Offset* d_end_offsets, Op op,
                             Acc init, cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, true, num_items, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, init, op, detail::convert<identity>{}, stream);
}

// Segment s is d_in[s·segment_size, (s + 1)·segment_size).
template <class T, class Acc, class Op>
cudaError_t segmented_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t num_segments,
                             uint64_t segment_size, Op op, Acc init, cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_fixed(d_temp, temp_bytes, d_in, d_out, num_segments, segment_size, init, op,
                                detail::convert<identity>{}, stream);
}

// The smallest element of each segment and its index within the segment (see above).
template <class T, class Offset>
cudaError_t segmented_argmin(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out,
                             uint64_t num_segments, const Offset* d_begin_offsets, const Offset* d_end_offsets,
                             cudaStream_t stream = 0) {
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, false, 0, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, key_value<T>{T{}, 0}, arg_min{}, detail::with_index{}, stream);
}

template <class T, class Offset>
cudaError_t segmented_argmin(void* d_temp, size_t& temp_bytes, const T* d_in, uint64_t num_items, key_value<T>* d_out,
                             uint64_t num_segments, const Offset* d_begin_offsets, const Offset* d_end_offsets,
                             cudaStream_t stream = 0) {
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, true, num_items, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, key_value<T>{T{}, 0}, arg_min{}, detail::with_index{}, stream);
}

template <class T>
cudaError_t segmented_argmin(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out,
                             uint64_t num_segments, uint64_t segment_size, cudaStream_t stream = 0) {
  return detail::dispatch_fixed(d_temp, temp_bytes, d_in, d_out, num_segments, segment_size, key_value<T>{T{}, 0},
                                arg_min{}, detail::with_index{}, stream);
}

// The largest element of each segment and its index within the segment (see above).
template <class T, class Offset>
cudaError_t segmented_argmax(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out,
                             uint64_t num_segments, const Offset* d_begin_offsets, const Offset* d_end_offsets,
                             cudaStream_t stream = 0) {
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, false, 0, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, key_value<T>{T{}, 0}, arg_max{}, detail::with_index{}, stream);
}

template <class T, class Offset>
cudaError_t segmented_argmax(void* d_temp, size_t& temp_bytes, const T* d_in, uint64_t num_items, key_value<T>* d_out,
                             uint64_t num_segments, const Offset* d_begin_offsets, const Offset* d_end_offsets,
                             cudaStream_t stream = 0) {
  return detail::dispatch_segmented(d_temp, temp_bytes, d_in, true, num_items, d_out, num_segments, d_begin_offsets,
                                    d_end_offsets, key_value<T>{T{}, 0}, arg_max{}, detail::with_index{}, stream);
}

template <class T>
cudaError_t segmented_argmax(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out,
                             uint64_t num_segments, uint64_t segment_size, cudaStream_t stream = 0) {
  return detail::dispatch_fixed(d_temp, temp_bytes, d_in, d_out, num_segments, segment_size, key_value<T>{T{}, 0},
                                arg_max{}, detail::with_index{}, stream);
}

}  // namespace warpfold
