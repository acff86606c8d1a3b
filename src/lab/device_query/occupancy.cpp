#include "lab/device_query/occupancy.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

namespace warpfold::lab {

double theoretical_occupancy(int blocks_per_sm, int threads_per_block, const harness::DeviceLimits& limits) {
  const int max_warps = limits.max_warps_per_sm();
  if (max_warps <= 0 || limits.warp_size <= 0) return 0.0;
  const int warps_per_block = (threads_per_block + limits.warp_size - 1) / limits.warp_size;
  return double(blocks_per_sm) * warps_per_block / max_warps;
}

KernelResources kernel_resources(const void* function) {
  cudaFuncAttributes a{};
  WARPFOLD_CUDA_CHECK(cudaFuncGetAttributes(&a, function));
  return {a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock};
}

std::optional<Occupancy> occupancy_at(const void* function, int threads_per_block, const harness::DeviceLimits& limits) {
  if (threads_per_block > kernel_resources(function).max_threads_per_block) return std::nullopt;
  Occupancy o;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, function, threads_per_block, 0));
  o.fraction = theoretical_occupancy(o.blocks_per_sm, threads_per_block, limits);
  return o;
}

}  // namespace warpfold::lab
