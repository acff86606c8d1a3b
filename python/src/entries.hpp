#pragma once
// The reduces the Python module can run, one entry per compiled signature. Host-only: the module
// (compiled as C++) sees plain function pointers, the kernels live in the .cu files of each dtype
// family (entries_*.cu), so that nanobind's headers never meet nvcc.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::python {

// One compiled reduce. `key` names it as "op/input/accumulator/output" with the dtype names NumPy
// and PyTorch share ("sum/int8/uint64/uint64", "sum/float16/float32/float16"). temp_bytes asks the
// temp storage the current device needs (it depends on the signature and the device only); run
// reduces n elements of `in` into *out with temp storage of exactly that size, on `stream`.
struct entry {
  std::string key;
  cudaError_t (*temp_bytes)(size_t& bytes);
  cudaError_t (*run)(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream);
};

// One function per translation unit (dtype family), each appending its entries.
void add_small_int_entries(std::vector<entry>& table);  // uint8 (and bool), int8, uint16, int16
void add_int32_entries(std::vector<entry>& table);      // int32, uint32
void add_int64_entries(std::vector<entry>& table);      // int64, uint64
void add_float_entries(std::vector<entry>& table);      // float32, float64
void add_half_entries(std::vector<entry>& table);       // float16, bfloat16

}  // namespace warpfold::python
