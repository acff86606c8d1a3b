#pragma once
// The execution limits of a device: what the book's simpleDeviceQuery prints and what a launch
// configuration must respect. Plain data, so that the checks using it run without a GPU.

#include <cstddef>

namespace warpfold::harness {

struct DeviceLimits {
  int warp_size = 32;
  size_t constant_mem_bytes = 0;
  size_t shared_mem_per_block_bytes = 0;
  size_t shared_mem_per_sm_bytes = 0;
  int registers_per_block = 0;
  int registers_per_sm = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};

  int max_warps_per_sm() const { return warp_size > 0 ? max_threads_per_sm / warp_size : 0; }
};

DeviceLimits query_device_limits(int ordinal = 0);

// The limits every CUDA device of compute capability 3.0 and later shares (threads per block,
// block and grid dimensions); used where no device can be asked.
DeviceLimits common_cuda_limits();

}  // namespace warpfold::harness
