#pragma once
// The reduces the Python module can run, one entry per compiled signature. Host-only: the module
// (compiled as C++) sees plain function pointers, the kernels live in the .cu files of each dtype
// family (entries_*.cu), so that nanobind's headers never meet nvcc.

#include <warpfold/detail/segmented_plan.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::python {

// One compiled full reduce. `key` names it as "op/input/accumulator/output" with the dtype names
// NumPy and PyTorch share ("sum/int8/uint64/uint64", "sum/float16/float32/float16"). temp_bytes
// asks the temp storage the current device needs (it depends on the signature and the device
// only); run reduces n elements of `in` into *out with temp storage of exactly that size, on
// `stream`. max_elements: the most elements it takes (a reproducible float sum's capacity).
struct entry {
  std::string key;
  cudaError_t (*temp_bytes)(size_t& bytes);
  cudaError_t (*run)(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream);
  uint64_t max_elements = UINT64_MAX;
};

// One compiled reduce along an axis (warpfold::reduce_axis, argmin_axis, argmax_axis), keyed as
// `entry`. `in` is [outer][axis][inner] with the shape's element strides; `out` gets outer·inner
// results, contiguous (argmin/argmax: int64 positions along the axis). The temp storage depends
// on the shape too.
struct axis_entry {
  std::string key;
  cudaError_t (*temp_bytes)(size_t& bytes, const axis_shape& shape);
  cudaError_t (*run)(void* temp, size_t temp_bytes, const void* in, void* out, const axis_shape& shape,
                     cudaStream_t stream);
};

// One compiled segmented reduce over CSR offsets (warpfold::segmented_reduce with the input's
// length: every offset clamped to [0, num_items)), keyed "op/input/accumulator/output/offsets".
// `offsets` holds num_segments + 1 integers; the temp storage depends on both counts too.
struct segmented_entry {
  std::string key;
  cudaError_t (*temp_bytes)(size_t& bytes, uint64_t num_items, uint64_t num_segments);
  cudaError_t (*run)(void* temp, size_t temp_bytes, const void* in, uint64_t num_items, void* out,
                     uint64_t num_segments, const void* offsets, cudaStream_t stream);
};

struct entry_table {
  std::vector<entry> full;
  std::vector<axis_entry> axis;
  std::vector<segmented_entry> segmented;
};

// One function per translation unit, each appending its entries.
void add_small_int_entries(entry_table& table);  // uint8 (and bool), int8, uint16, int16
void add_int32_entries(entry_table& table);      // int32, uint32
void add_int64_entries(entry_table& table);      // int64, uint64
void add_float_entries(entry_table& table);      // float32, float64
void add_half_entries(entry_table& table);       // float16, bfloat16
void add_axis_int_entries(entry_table& table);   // along an axis and per segment: bool and integers
void add_axis_float_entries(entry_table& table); // along an axis and per segment: floating-point types

// Every entry, in the order the Python side indexes them.
inline entry_table all_entries() {
  entry_table t;
  add_small_int_entries(t);
  add_int32_entries(t);
  add_int64_entries(t);
  add_float_entries(t);
  add_half_entries(t);
  add_axis_int_entries(t);
  add_axis_float_entries(t);
  return t;
}

}  // namespace warpfold::python
