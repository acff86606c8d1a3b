#pragma once
// Theoretical occupancy: the share of an SM's warp slots that resident blocks of a kernel fill,
// as the CUDA occupancy calculator (cudaOccupancyMaxActiveBlocksPerMultiprocessor) works it out
// from the kernel's registers and shared memory.

#include "harness/device_limits.hpp"

#include <optional>

namespace warpfold::lab {

// Active warps / maximum warps per SM, for `blocks_per_sm` resident blocks of `threads_per_block`
// (a partial warp still takes a whole warp slot). 0 when the SM limits are unknown.
double theoretical_occupancy(int blocks_per_sm, int threads_per_block, const harness::DeviceLimits& limits);

struct KernelResources {
  int registers_per_thread = 0;
  size_t static_shared_bytes = 0;
  size_t local_bytes_per_thread = 0;  // spills and stack
  int max_threads_per_block = 0;      // for this kernel: registers may lower it below the device's
};

// From cudaFuncGetAttributes.
KernelResources kernel_resources(const void* function);

struct Occupancy {
  int blocks_per_sm = 0;
  double fraction = 0;  // theoretical_occupancy of those blocks
};

// For one block size with no dynamic shared memory; nullopt when the kernel cannot be launched
// with that many threads.
std::optional<Occupancy> occupancy_at(const void* function, int threads_per_block, const harness::DeviceLimits& limits);

}  // namespace warpfold::lab
