#include "harness/device_limits.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

namespace warpfold::harness {

DeviceLimits query_device_limits(int ordinal) {
  cudaDeviceProp p{};
  WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  DeviceLimits l;
  l.warp_size = p.warpSize;
  l.constant_mem_bytes = p.totalConstMem;
  l.shared_mem_per_block_bytes = p.sharedMemPerBlock;
  l.shared_mem_per_sm_bytes = p.sharedMemPerMultiprocessor;
  l.registers_per_block = p.regsPerBlock;
  l.registers_per_sm = p.regsPerMultiprocessor;
  l.max_threads_per_block = p.maxThreadsPerBlock;
  l.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  l.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  for (int i = 0; i < 3; ++i) {
    l.max_block_dim[i] = p.maxThreadsDim[i];
    l.max_grid_dim[i] = p.maxGridSize[i];
  }
  return l;
}

DeviceLimits common_cuda_limits() {
  DeviceLimits l;
  l.max_threads_per_block = 1024;
  l.max_block_dim[0] = 1024;
  l.max_block_dim[1] = 1024;
  l.max_block_dim[2] = 64;
  l.max_grid_dim[0] = 2147483647;
  l.max_grid_dim[1] = 65535;
  l.max_grid_dim[2] = 65535;
  return l;
}

}  // namespace warpfold::harness
