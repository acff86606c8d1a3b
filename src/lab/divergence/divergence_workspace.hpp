#pragma once
// The output buffer of the divergence kernels and the check of one kernel's output. The seed's
// kernels have no bounds check: every one of the grid × block threads writes, so the buffer holds
// grid × block floats and the check covers them all.

#include "harness/device_buffer.hpp"
#include "lab/divergence/divergence_registry.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace warpfold::lab::divergence {

// The seed's grid: ceil(n / block) blocks.
unsigned divergence_grid(uint64_t n, unsigned block);

class DivergenceWorkspace {
 public:
  DivergenceWorkspace(uint64_t n, unsigned block, cudaStream_t stream);

  // Device bytes needed for n elements at this block size (for a clear error before allocating).
  static size_t bytes_needed(uint64_t n, unsigned block);

  unsigned grid() const { return grid_; }
  unsigned block() const { return block_; }
  uint64_t threads() const { return uint64_t(grid_) * block_; }

  void launch(const DivergenceKernel& k, Build build) const;  // async on the stream
  // Fills the buffer with NaN, launches, waits and compares every thread's value with the CPU's.
  OutputCheck run_and_check(const DivergenceKernel& k, Build build, int warp_size) const;

 private:
  unsigned block_;
  unsigned grid_;
  cudaStream_t stream_;
  harness::DeviceBuffer<float> out_;
};

}  // namespace warpfold::lab::divergence
