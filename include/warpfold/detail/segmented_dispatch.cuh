#pragma once
// Host side of segmented_reduce and reduce_axis: argument checks, the kernels' capacity on the
// device, the temp-storage size, the plan and the launch.

#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/kernel_launch.cuh>
#include <warpfold/detail/reduce_dispatch.cuh>
#include <warpfold/detail/segmented_block_rows.cuh>
#include <warpfold/detail/segmented_columns.cuh>
#include <warpfold/detail/segmented_flat.cuh>
#include <warpfold/detail/segmented_kernel.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/segmented_short_rows.cuh>
#include <warpfold/detail/segmented_sources.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

// The capacity of one of these kernels (256 threads, no dynamic shared memory) on `device`: the
// architecture of its code and its resident blocks, asked once per device.
template <auto Kernel>
cudaError_t segmented_capacity(int device, kernel_capacity& capacity) {
  static std::atomic<unsigned long long> known[kMaxDevices] = {};  // arch << 32 | blocks; 0: not asked
  if (device < kMaxDevices) {
    if (const unsigned long long k = known[device].load(std::memory_order_relaxed); k != 0) {
      capacity = {unsigned(k >> 32), unsigned(k)};
      return cudaSuccess;
    }
  }
  if (cudaError_t rc = compiled_arch<Kernel>(capacity.arch); rc != cudaSuccess) return rc;
  if (cudaError_t rc = resident_blocks<Kernel>(device, kSegmentThreads, 0, 0, capacity.blocks); rc != cudaSuccess) {
    return rc;
  }
  if (device < kMaxDevices) known[device].store((uint64_t(capacity.arch) << 32) | capacity.blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

// The current device and Kernel's capacity on it.
template <auto Kernel>
cudaError_t device_capacity(current_device& current, kernel_capacity& capacity) {
  if (cudaError_t rc = get_current_device(current); rc != cudaSuccess) return rc;
  return segmented_capacity<Kernel>(current.device, capacity);
}

// A size query gets `words` 8-byte words as its answer; a run (`run` set) must have been given
// that much.
inline cudaError_t answer_size(void* d_temp, size_t& temp_bytes, uint64_t words, bool& run) {
  const size_t needed = words * sizeof(unsigned long long);
  run = false;
  if (d_temp == nullptr) {
    temp_bytes = needed;
    return cudaSuccess;
  }
  if (temp_bytes < needed) return cudaErrorInvalidValue;
  run = true;
  return cudaSuccess;
}

inline bool misaligned(const void* p, size_t align) { return reinterpret_cast<uintptr_t>(p) % align != 0; }

// The call's key (combine.cuh's call_key) and, in a graph capture, a memset node clearing words
// [from, to) of temp storage: a replay's counters and partials carry the same tag as the last's.
inline cudaError_t begin_segmented_call(cudaStream_t stream, void* d_temp, uint64_t from, uint64_t to,
                                        unsigned long long& key) {
  bool captured = false;
  if (cudaError_t rc = stream_is_capturing(stream, captured); rc != cudaSuccess) return rc;
  key = call_key(next_call(), process_salt(), captured);
  if (captured && to > from) {
    return cudaMemsetAsync(static_cast<unsigned long long*>(d_temp) + from, 0, (to - from) * sizeof(unsigned long long),
                           stream);
  }
  return cudaSuccess;
}

// Alike block-class rows of one piece each by the block-rows kernel (segmented_block_rows.cuh),
// with the segments kernel's parameters.
template <class Params>
cudaError_t run_block_rows(const Params& p, const current_device& current, cudaStream_t stream) {
  constexpr auto kernel = &block_rows_kernel<Params>;
  kernel_capacity capacity;
  if (cudaError_t rc = segmented_capacity<kernel>(current.device, capacity); rc != cudaSuccess) return rc;
  const unsigned grid = unsigned(p.segments < capacity.blocks ? p.segments : capacity.blocks);
  Params args_p = p;
  void* args[] = {&args_p};
  return launch_kernel<kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0, current.context_id);
}

// The flat kernel (segmented_flat.cuh) over every segment of the segments kernel's parameters p,
// ahead of that kernel.
template <class Params>
cudaError_t run_flat(const Params& p, const current_device& current, cudaStream_t stream) {
  constexpr auto kernel = &flat_kernel<Params>;
  kernel_capacity capacity;
  if (cudaError_t rc = segmented_capacity<kernel>(current.device, capacity); rc != cudaSuccess) return rc;
  const uint64_t warp_blocks = ceil_div(ceil_div(p.segments, 32), kSegmentWarps);
  const unsigned grid = unsigned(warp_blocks < capacity.blocks ? warp_blocks : capacity.blocks);
  Params args_p = p;
  void* args[] = {&args_p};
  return launch_kernel<kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0, current.context_id);
}

// Every segment of `source` by the segments kernel (segmented_kernel.cuh). knows_total: the
// segments hold at most total_elements elements between them, which sizes the long-segment pool;
// pool_cap caps it (tests: a pool too small to share every long segment). A call with offsets of
// kFlatMinSegments or more, of types the flat kernel folds, takes the flat kernel first.
template <class Source, class Acc, class Out, class Op, class Form>
cudaError_t run_segments(void* d_temp, size_t& temp_bytes, const Source& source, uint64_t segments, Out* d_out,
                         Acc init, Op op, Form form, bool knows_total, uint64_t total_elements, cudaStream_t stream,
                         uint64_t pool_cap = ~uint64_t(0)) {
  using params_t = segments_params<Source, Acc, Out, Op, Form>;
  constexpr auto kernel = &segments_kernel<params_t>;
  current_device current;
  kernel_capacity capacity;
  if (cudaError_t rc = device_capacity<kernel>(current, capacity); rc != cudaSuccess) return rc;
  const uint64_t tile_items = uint64_t(kSegmentThreads) * segment_items_in_flight<typename Source::view::items_t>;
  const uint64_t total_items = total_elements / Source::view::kItemElements;
  const uint64_t pool = pool_pieces(knows_total, total_items, tile_items, capacity.blocks);
  const segments_layout layout = layout_segments(pool < pool_cap ? pool : pool_cap, kPartialWords<Acc>);
  bool run = false;
  if (cudaError_t rc = answer_size(d_temp, temp_bytes, layout.words, run); rc != cudaSuccess || !run) return rc;
  if (segments == 0) return cudaSuccess;
  const uint64_t total_tiles = knows_total ? ceil_div(total_items, tile_items) : ~uint64_t(0);
  unsigned grid = capacity.blocks;
  if (!Source::kRowsAlike && knows_total && segments <= kMaxTileSegments) {
    grid = few_segments_grid(segments, total_tiles, grid);
  }
  const unsigned k = tile_segments(segments, grid);
  const uint64_t tiles = ceil_div(segments, k);
  if (tiles >= (uint64_t(1) << 32)) return cudaErrorInvalidValue;  // 2^42 segments: no device holds them
  unsigned long long key = 0;
  if (cudaError_t rc = begin_segmented_call(stream, d_temp, kClassifiedWord, layout.words, key); rc != cudaSuccess) {
    return rc;
  }
  params_t p{source, segments, tiles, k,   capacity.blocks, total_tiles,         layout,
             static_cast<unsigned long long*>(d_temp), d_out, init, op, form, key, combine_timeout_ns()};
  bool dependent = false;  // the segments kernel as the flat kernel's dependent
  if constexpr (Source::kRowsAlike) {
    p.row_pieces = alike_row_pieces(segments, source.axis, sizeof(typename Source::element), Source::view::kItemElements,
                                    tile_items, capacity.blocks, total_tiles, layout);
    if constexpr (takes_block_rows<typename Source::element, Acc>) {
      if (p.row_pieces == 1) return run_block_rows(p, current, stream);
    }
    if (p.row_pieces != 0 && segments * p.row_pieces < grid) grid = unsigned(segments * p.row_pieces);
    p.rows_by_warp = classify_segment(source.axis, sizeof(typename Source::element)) == segment_class::warp;
    const uint64_t warp_blocks = ceil_div(segments, kSegmentWarps);
    if (p.rows_by_warp && warp_blocks < grid) grid = unsigned(warp_blocks);
  } else if constexpr (flat_types<typename Source::element, Acc, Form>) {
    if (segments >= kFlatMinSegments) {
      if (cudaError_t rc = run_flat(p, current, stream); rc != cudaSuccess) return rc;
      p.after_flat = true;
      dependent = capacity.arch >= 900;  // where compiled with its wait
    }
  }
  void* args[] = {&p};
  return launch_kernel<kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0, current.context_id,
                               dependent);
}

// A kernel that serves a shape in place of another path (`otherwise(temp, bytes)`), asking the
// temp storage that path asks, so that a size query holds whichever runs: the query goes to
// `otherwise`, less temp storage than it asks is refused, and Kernel runs `rounds` rounds of
// work on a grid of at most the blocks the device holds at once.
template <auto Kernel, class Params, class Otherwise>
cudaError_t run_in_place_of(void* d_temp, size_t& temp_bytes, Otherwise&& otherwise, uint64_t rounds, Params p,
                            cudaStream_t stream) {
  if (d_temp == nullptr) return otherwise(d_temp, temp_bytes);
  size_t needed = 0;
  if (cudaError_t rc = otherwise(nullptr, needed); rc != cudaSuccess) return rc;
  if (temp_bytes < needed) return cudaErrorInvalidValue;
  current_device current;
  kernel_capacity capacity;
  if (cudaError_t rc = device_capacity<Kernel>(current, capacity); rc != cudaSuccess) return rc;
  const unsigned grid = unsigned(rounds < capacity.blocks ? rounds : capacity.blocks);
  void* args[] = {&p};
  return launch_kernel<Kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0, current.context_id);
}

// Rows of one size (rows_source): the short-rows kernel where they are whole vectors within a
// warp's reach, each starting on a vector boundary, else the segments kernel, whose temp storage
// either asks.
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t run_rows(void* d_temp, size_t& temp_bytes, const rows_source<T, false>& rows, uint64_t count, Out* d_out,
                     Acc init, Op op, Form form, cudaStream_t stream) {
  const short_rows_shape shape = plan_short_rows(rows.axis, vector_elements<T>, reinterpret_cast<uintptr_t>(rows.in),
                                                 sizeof(T), rows.outer_stride, rows.inner, rows.inner_stride);
  const auto segments = [&](void* t, size_t& b) {
    return run_segments(t, b, rows, count, d_out, init, op, form, true, rows.axis * count, stream);
  };
  if (!shape.fits) return segments(d_temp, temp_bytes);
  using params_t = short_rows_params<T, Acc, Out, Op, Form>;
  const uint64_t rounds = ceil_div(count * shape.lanes, uint64_t(kShortRowsInFlight) * kSegmentThreads);
  const params_t p{rows, count, shape, static_cast<unsigned long long*>(d_temp), d_out, init, op, form};
  return run_in_place_of<&short_rows_kernel<params_t>>(d_temp, temp_bytes, segments, rounds, p, stream);
}

// The columns a lane of the columns kernel reads at once: its vector where every row of every
// strip starts on a vector boundary, else 1.
template <class T>
unsigned column_vector_of(const T* d_in, const axis_shape& s) {
  constexpr unsigned v = column_vector_elements<T>;
  const bool aligned = !misaligned(d_in, sizeof(T) * v) && s.inner % v == 0 && (s.outer <= 1 || s.outer_stride % v == 0) &&
                       (s.axis <= 1 || s.axis_stride % v == 0);
  return aligned ? v : 1;
}

// reduce_axis's columns (segmented_columns.cuh).
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t run_columns(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, const axis_shape& s, Acc init,
                        Op op, Form form, cudaStream_t stream) {
  using params_t = columns_params<T, Acc, Out, Op, Form>;
  constexpr auto plain_kernel = &columns_kernel<params_t, false>;
  constexpr auto chunked_kernel = &columns_kernel<params_t, true>;
  current_device current;
  kernel_capacity plain, chunked;
  if (cudaError_t rc = device_capacity<plain_kernel>(current, plain); rc != cudaSuccess) return rc;
  if (cudaError_t rc = segmented_capacity<chunked_kernel>(current.device, chunked); rc != cudaSuccess) return rc;
  const column_plan plan =
      plan_columns_for(s.outer, s.axis, s.inner, column_vector_of<T>(d_in, s), plain.blocks, chunked.blocks);
  const columns_layout layout = layout_columns(plan, s.outer, kPartialWords<Acc>);
  // The size answers either vector width, so that a query with another pointer's alignment holds.
  const column_plan scalar_plan = plan_columns_for(s.outer, s.axis, s.inner, 1, plain.blocks, chunked.blocks);
  const uint64_t scalar_words = layout_columns(scalar_plan, s.outer, kPartialWords<Acc>).words;
  bool run = false;
  if (cudaError_t rc = answer_size(d_temp, temp_bytes, layout.words > scalar_words ? layout.words : scalar_words, run);
      rc != cudaSuccess || !run) {
    return rc;
  }
  unsigned long long key = 0;
  if (cudaError_t rc = begin_segmented_call(stream, d_temp, layout.counters_word, layout.words, key); rc != cudaSuccess) {
    return rc;
  }
  params_t p{d_in,   s.outer, s.axis, s.inner, s.outer_stride, s.axis_stride, plan, layout,
             static_cast<unsigned long long*>(d_temp), d_out, init, op, form, key, combine_timeout_ns()};
  void* args[] = {&p};
  if (plan.chunks == 1) {
    const unsigned grid = plain_columns_grid(plan, plain.blocks);
    return launch_kernel<plain_kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0,
                                       current.context_id);
  }
  const unsigned grid = unsigned(plan.units < chunked.blocks ? plan.units : chunked.blocks);
  return launch_kernel<chunked_kernel>(current.device, dim3(grid), dim3(kSegmentThreads), args, stream, 0,
                                       current.context_id);
}

// segmented_reduce and its argmin/argmax over offsets; has_length: the overload that takes the
// input's length, whose offsets are clamped to it.
template <class T, class Acc, class Out, class Offset, class Op, class Form>
cudaError_t dispatch_segmented(void* d_temp, size_t& temp_bytes, const T* d_in, bool has_length, uint64_t num_items,
                               Out* d_out, uint64_t num_segments, const Offset* d_begin, const Offset* d_end, Acc init,
                               Op op, Form form, cudaStream_t stream, uint64_t pool_cap = ~uint64_t(0)) {
  static_assert(std::is_integral_v<Offset> && (sizeof(Offset) == 4 || sizeof(Offset) == 8),
                "warpfold::segmented_reduce: offsets are 32- or 64-bit integers (int32_t, int64_t)");
  if (d_temp != nullptr) {
    if (num_segments > 0) {
      if (d_out == nullptr || d_begin == nullptr || d_end == nullptr) return cudaErrorInvalidValue;
      if (d_in == nullptr && !(has_length && num_items == 0)) return cudaErrorInvalidValue;
    }
    if (misaligned(d_in, alignof(T)) || misaligned(d_out, alignof(Out)) || misaligned(d_begin, alignof(Offset)) ||
        misaligned(d_end, alignof(Offset)) || misaligned(d_temp, 8)) {
      return cudaErrorMisalignedAddress;
    }
  }
  const offsets_source<T, Offset> source{d_in, d_begin, d_end, num_items, has_length};
  return run_segments(d_temp, temp_bytes, source, num_segments, d_out, init, op, form, has_length, num_items, stream,
                      pool_cap);
}

// The checks reduce_axis and the fixed-size segmented_reduce share: the shape, the pointers, and
// for a shape with no outputs the header-only temp storage (`done`: nothing to launch).
inline cudaError_t check_axis_call(void* d_temp, size_t& temp_bytes, const void* d_in, size_t in_align,
                                   size_t elem_bytes, const void* d_out, size_t out_align, const axis_shape& s,
                                   bool& done) {
  done = false;
  if (check_axis_shape(s, elem_bytes) != axis_problem::none) return cudaErrorInvalidValue;
  const uint64_t outputs = s.outer * s.inner;
  if (d_temp != nullptr) {
    if (outputs > 0 && (d_out == nullptr || (s.axis > 0 && d_in == nullptr))) return cudaErrorInvalidValue;
    if (misaligned(d_in, in_align) || misaligned(d_out, out_align) || misaligned(d_temp, 8)) {
      return cudaErrorMisalignedAddress;
    }
  }
  if (outputs > 0) return cudaSuccess;
  done = true;  // nothing to read or write; the header keeps last_combine_status meaningful
  const size_t header = kSegmentCounterWords * sizeof(unsigned long long);
  if (d_temp == nullptr) temp_bytes = header;
  return d_temp == nullptr || temp_bytes >= header ? cudaSuccess : cudaErrorInvalidValue;
}

// The fixed-size segmented_reduce: rows of a contiguous [segments][size] shape.
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t dispatch_fixed(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, uint64_t segments,
                           uint64_t size, Acc init, Op op, Form form, cudaStream_t stream) {
  const axis_shape s = axis_shape::contiguous(segments, size, 1);
  bool done = false;
  if (cudaError_t rc = check_axis_call(d_temp, temp_bytes, d_in, alignof(T), sizeof(T), d_out, alignof(Out), s, done);
      rc != cudaSuccess || done) {
    return rc;
  }
  const rows_source<T, false> rows{d_in, s.axis, 1, s.outer_stride, 0, 1};
  return run_rows(d_temp, temp_bytes, rows, segments, d_out, init, op, form, stream);
}

// Whether the single-elements kernel reads vectors: input (and output, where it stores vectors)
// start on a vector boundary, and so does every row.
template <class T, class Out>
bool single_by_vectors(const T* in, const Out* out, int64_t row_stride) {
  constexpr unsigned v = column_vector_elements<T>;
  const bool out_aligned = !stores_output_vectors<Out, v> || !misaligned(out, sizeof(Out) * v);
  return v > 1 && !misaligned(in, sizeof(T) * v) && out_aligned && row_stride % int64_t(v) == 0;
}

// The rows the single-elements kernel folds per output for shape s (0: not its shape): an axis of
// one whose outputs' elements lie side by side (output k reads input element k), or an axis of up
// to kFewRowsMax rows over one outer index whose inner extent has stride 1 and fills a warp's
// lanes (where the columns kernel folds each lane's rows in order, as the map does).
template <class T>
unsigned single_elements_rows(const axis_shape& s) {
  if (s.axis == 1 && (s.inner == 1 || s.inner_stride == 1) && (s.outer == 1 || s.outer_stride == int64_t(s.inner)))
    return 1;
  const bool wide_columns = s.outer == 1 && s.inner_stride == 1 && s.inner >= 32ull * column_vector_elements<T>;
  return wide_columns && s.axis >= 2 && s.axis <= kFewRowsMax ? unsigned(s.axis) : 0u;
}

// The single-elements kernel for shape s (single_elements_rows(s) rows), in place of the path the
// shape takes otherwise.
template <class T, class Acc, class Out, class Op, class Form, class Otherwise>
cudaError_t run_single_elements(void* d_temp, size_t& temp_bytes, const T* d_in, const axis_shape& s, unsigned rows,
                                Out* d_out, Acc init, Op op, Form form, cudaStream_t stream, Otherwise&& otherwise) {
  using params_t = single_elements_params<T, Acc, Out, Op, Form>;
  const uint64_t count = s.outer * s.inner;
  const int64_t row_stride = rows > 1 ? s.axis_stride : 0;
  const bool by_vectors = single_by_vectors(d_in, d_out, row_stride);
  const uint64_t items = by_vectors ? count / column_vector_elements<T> : count;
  const uint64_t per_round = uint64_t(kSingleInFlight / rows) * kSegmentThreads;
  const uint64_t rounds = ceil_div(items > 0 ? items : 1, per_round);
  const params_t p{d_in, count, rows, row_stride, static_cast<unsigned long long*>(d_temp), d_out, init, op, form,
                   by_vectors};
  return run_in_place_of<&single_elements_kernel<params_t>>(d_temp, temp_bytes, otherwise, rounds, p, stream);
}

// reduce_axis past its checks: the columns kernel where the inner extent has stride 1, else the
// segments kernel over rows (choose_axis_path).
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t dispatch_axis_paths(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, const axis_shape& s,
                                Acc init, Op op, Form form, cudaStream_t stream) {
  const uint64_t outputs = s.outer * s.inner, total = s.axis * outputs;
  if (s.inner == 1 && s.outer > 1 && s.outer_stride == 1 && s.axis_stride != 1) {
    // Outputs side by side and rows apart (x.T.sum(1)): the same outputs as columns of one outer.
    const axis_shape columns{1, s.axis, s.outer, 0, s.axis_stride, 1};
    return run_columns(d_temp, temp_bytes, d_in, d_out, columns, init, op, form, stream);
  }
  switch (choose_axis_path(s)) {
    case axis_path::columns: return run_columns(d_temp, temp_bytes, d_in, d_out, s, init, op, form, stream);
    case axis_path::rows: {
      const rows_source<T, false> rows{d_in, s.axis, s.inner, s.outer_stride, s.inner_stride, 1};
      return run_rows(d_temp, temp_bytes, rows, outputs, d_out, init, op, form, stream);
    }
    case axis_path::strided_rows: {
      const rows_source<T, true> rows{d_in, s.axis, s.inner, s.outer_stride, s.inner_stride, s.axis_stride};
      return run_segments(d_temp, temp_bytes, rows, outputs, d_out, init, op, form, true, total, stream);
    }
  }
  return cudaErrorInvalidValue;
}

// reduce_axis: a map where the axis is one element and the outputs' elements lie side by side, or a
// few rows of wide columns (single_elements_rows), else the paths above.
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t dispatch_axis(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, const axis_shape& s, Acc init,
                          Op op, Form form, cudaStream_t stream) {
  bool done = false;
  if (cudaError_t rc = check_axis_call(d_temp, temp_bytes, d_in, alignof(T), sizeof(T), d_out, alignof(Out), s, done);
      rc != cudaSuccess || done) {
    return rc;
  }
  const auto paths = [&](void* t, size_t& b) { return dispatch_axis_paths(t, b, d_in, d_out, s, init, op, form, stream); };
  if (const unsigned rows = single_elements_rows<T>(s); rows != 0) {
    return run_single_elements(d_temp, temp_bytes, d_in, s, rows, d_out, init, op, form, stream, paths);
  }
  return paths(d_temp, temp_bytes);
}

}  // namespace warpfold::detail
