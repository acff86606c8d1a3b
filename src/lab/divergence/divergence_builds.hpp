#pragma once
// The two builds of the divergence kernels (divergence.cuh): one optimised as
// the rest of the lab, one with device debug (-G), which keeps every branch as a branch. Both come
// from divergence_kernels.cu, compiled twice; each build lists its kernels by the book's names.

#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

namespace warpfold::lab::divergence {

// Launches one kernel on `stream` with grid × block threads writing out[0 .. grid × block).
using Launch = void (*)(float* out, unsigned grid, unsigned block, cudaStream_t stream);

struct EntryPoint {
  std::string_view name;  // the book's name (mathKernel4_fixed for the corrected kernel)
  Launch launch;
  const void* function;   // for cudaFuncGetAttributes and the occupancy calculator
};

namespace optimised {
std::vector<EntryPoint> entry_points();
}
namespace device_debug {
std::vector<EntryPoint> entry_points();
}

}  // namespace warpfold::lab::divergence
