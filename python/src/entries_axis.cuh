#pragma once
// Builds the module's entries along an axis and per segment (entries.hpp) from the library's
// public API: warpfold::reduce_axis, argmin_axis and argmax_axis, and segmented_reduce over CSR
// offsets with the input's length. Included by entries_axis_*.cu, which list the signatures.
//
// Each signature here compiles the segments kernel (twice along an axis: contiguous and strided
// rows) and the columns kernel, several times the cost of a full reduce: the lists are short on
// purpose (docs/python.md names what they cover).

#include "entries.cuh"

#include <warpfold/reduce_axis.cuh>
#include <warpfold/segmented_reduce.cuh>

namespace warpfold::python {

// --- along an axis --------------------------------------------------------------------------------

template <class Op, class T, class Acc>
cudaError_t axis_fold_temp_bytes(size_t& bytes, const axis_shape& shape) {
  return warpfold::reduce_axis(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<Acc*>(nullptr), shape, Op{},
                               fold_init<Op, Acc>(), nullptr);
}

template <class Op, class T, class Acc>
cudaError_t axis_fold_run(void* temp, size_t temp_bytes, const void* in, void* out, const axis_shape& shape,
                          cudaStream_t stream) {
  return warpfold::reduce_axis(temp, temp_bytes, static_cast<const T*>(in), static_cast<Acc*>(out), shape, Op{},
                               fold_init<Op, Acc>(), stream);
}

// A fold whose results are staged in Acc and converted to Out (float16, bfloat16).
template <class Op, class T, class Acc, class Out>
cudaError_t axis_narrowed_temp_bytes(size_t& bytes, const axis_shape& shape) {
  size_t fold_bytes = 0;
  const cudaError_t rc = axis_fold_temp_bytes<Op, T, Acc>(fold_bytes, shape);
  bytes = with_stage<Acc>(fold_bytes, shape.outer * shape.inner);
  return rc;
}

template <class Op, class T, class Acc, class Out>
cudaError_t axis_narrowed_run(void* temp, size_t temp_bytes, const void* in, void* out, const axis_shape& shape,
                              cudaStream_t stream) {
  return run_staged<Acc, Out>(temp, temp_bytes, out, shape.outer * shape.inner, stream,
                              [&](size_t fold_bytes, Acc* staged) {
                                return axis_fold_run<Op, T, Acc>(temp, fold_bytes, in, staged, shape, stream);
                              });
}

// argmin / argmax: {value, position} pairs staged, the positions converted to int64.
template <bool Max, class T>
cudaError_t axis_search(void* temp, size_t& temp_bytes, const T* in, warpfold::key_value<T>* out,
                        const axis_shape& shape, cudaStream_t stream) {
  if constexpr (Max) return warpfold::argmax_axis(temp, temp_bytes, in, out, shape, stream);
  else return warpfold::argmin_axis(temp, temp_bytes, in, out, shape, stream);
}

template <bool Max, class T>
cudaError_t axis_search_temp_bytes(size_t& bytes, const axis_shape& shape) {
  size_t search_bytes = 0;
  const cudaError_t rc = axis_search<Max, T>(nullptr, search_bytes, nullptr, nullptr, shape, nullptr);
  bytes = with_stage<warpfold::key_value<T>>(search_bytes, shape.outer * shape.inner);
  return rc;
}

template <bool Max, class T>
cudaError_t axis_search_run(void* temp, size_t temp_bytes, const void* in, void* out, const axis_shape& shape,
                            cudaStream_t stream) {
  using pair = warpfold::key_value<T>;
  return run_staged<pair, int64_t>(temp, temp_bytes, out, shape.outer * shape.inner, stream,
                                   [&](size_t search_bytes, pair* staged) {
                                     return axis_search<Max, T>(temp, search_bytes, static_cast<const T*>(in), staged,
                                                                shape, stream);
                                   });
}

// --- per segment, over CSR offsets ------------------------------------------------------------------

template <class Op, class T, class Acc, class Offset>
cudaError_t segmented_fold(void* temp, size_t& temp_bytes, const void* in, uint64_t num_items, Acc* out,
                           uint64_t num_segments, const void* offsets, cudaStream_t stream) {
  const Offset* begin = static_cast<const Offset*>(offsets);
  return warpfold::segmented_reduce(temp, temp_bytes, static_cast<const T*>(in), num_items, out, num_segments, begin,
                                    begin == nullptr ? nullptr : begin + 1, Op{}, fold_init<Op, Acc>(), stream);
}

template <class Op, class T, class Acc, class Out, class Offset>
cudaError_t segmented_temp_bytes(size_t& bytes, uint64_t num_items, uint64_t num_segments) {
  size_t fold_bytes = 0;
  const cudaError_t rc =
      segmented_fold<Op, T, Acc, Offset>(nullptr, fold_bytes, nullptr, num_items, nullptr, 0, nullptr, nullptr);
  bytes = std::is_same_v<Acc, Out> ? fold_bytes : with_stage<Acc>(fold_bytes, num_segments);
  return rc;
}

template <class Op, class T, class Acc, class Out, class Offset>
cudaError_t segmented_run(void* temp, size_t temp_bytes, const void* in, uint64_t num_items, void* out,
                          uint64_t num_segments, const void* offsets, cudaStream_t stream) {
  if constexpr (std::is_same_v<Acc, Out>) {
    return segmented_fold<Op, T, Acc, Offset>(temp, temp_bytes, in, num_items, static_cast<Acc*>(out), num_segments,
                                              offsets, stream);
  } else {
    return run_staged<Acc, Out>(temp, temp_bytes, out, num_segments, stream, [&](size_t fold_bytes, Acc* staged) {
      return segmented_fold<Op, T, Acc, Offset>(temp, fold_bytes, in, num_items, staged, num_segments, offsets, stream);
    });
  }
}

// --- what each list holds ----------------------------------------------------------------------------

template <class T>
constexpr const char* offset_name() {
  return sizeof(T) == 4 ? "int32" : "int64";
}

// Fold of T along an axis into Acc, the result Acc itself and each type in Narrowed.
template <class Op, class T, class Acc, class... Narrowed>
void add_axis_fold(entry_table& table) {
  table.axis.push_back({entry_key<T, Acc, Acc>(fold_name<Op>()), &axis_fold_temp_bytes<Op, T, Acc>,
                        &axis_fold_run<Op, T, Acc>});
  (table.axis.push_back({entry_key<T, Acc, Narrowed>(fold_name<Op>()), &axis_narrowed_temp_bytes<Op, T, Acc, Narrowed>,
                         &axis_narrowed_run<Op, T, Acc, Narrowed>}),
   ...);
}

// Fold of T per segment into Acc, the result Acc itself and each type in Narrowed, for int32
// and int64 offsets.
template <class Op, class T, class Acc, class... Narrowed>
void add_segmented_fold(entry_table& table) {
  const auto add = [&](auto offset) {
    using Offset = decltype(offset);
    const std::string suffix = std::string("/") + offset_name<Offset>();
    table.segmented.push_back({entry_key<T, Acc, Acc>(fold_name<Op>()) + suffix,
                               &segmented_temp_bytes<Op, T, Acc, Acc, Offset>,
                               &segmented_run<Op, T, Acc, Acc, Offset>});
    (table.segmented.push_back({entry_key<T, Acc, Narrowed>(fold_name<Op>()) + suffix,
                                &segmented_temp_bytes<Op, T, Acc, Narrowed, Offset>,
                                &segmented_run<Op, T, Acc, Narrowed, Offset>}),
     ...);
  };
  add(int32_t{});
  add(int64_t{});
}

// The same fold along an axis and per segment.
template <class Op, class T, class Acc, class... Narrowed>
void add_axis_and_segmented_fold(entry_table& table) {
  add_axis_fold<Op, T, Acc, Narrowed...>(table);
  add_segmented_fold<Op, T, Acc, Narrowed...>(table);
}

// Everything but sums for T: products into ProductAcc, min, max, argmin and argmax along an axis;
// min and max per segment.
template <class T, class ProductAcc>
void add_axis_non_sums(entry_table& table) {
  add_axis_fold<warpfold::multiplies, T, ProductAcc>(table);
  add_axis_and_segmented_fold<warpfold::minimum, T, T>(table);
  add_axis_and_segmented_fold<warpfold::maximum, T, T>(table);
  table.axis.push_back({entry_key<T, T, int64_t>("argmin"), &axis_search_temp_bytes<false, T>,
                        &axis_search_run<false, T>});
  table.axis.push_back({entry_key<T, T, int64_t>("argmax"), &axis_search_temp_bytes<true, T>,
                        &axis_search_run<true, T>});
}

}  // namespace warpfold::python
