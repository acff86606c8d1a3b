#pragma once
// The three matrices of the 2-D sum on the device, their random inputs and the CPU's A + B, and the
// bit-for-bit check of one launch's C.

#include "harness/device_buffer.hpp"
#include "lab/grid_shape/block_shape.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::lab {

// The book's initialData, (rand() & 0xFF) / 10.0f, drawn from a seeded generator.
std::vector<float> book_matrix_data(size_t count, uint64_t seed);

class MatrixWorkspace {
 public:
  // Draws A and B from `seed` (B from the next seed), computes A + B on the CPU and uploads A and B.
  MatrixWorkspace(uint64_t nx, uint64_t ny, uint64_t seed, cudaStream_t stream);

  // Device bytes for the three matrices (for a clear error before allocating).
  static size_t bytes_needed(uint64_t nx, uint64_t ny);
  // Host bytes at the constructor's peak: A and B as drawn, A + B, and C's read-back buffer.
  static size_t host_bytes_needed(uint64_t nx, uint64_t ny);

  // Async on the stream; a launch error is left for the caller's cudaGetLastError.
  void launch(BlockShape block, GridShape grid) const;

  // Fills C with NaN, launches, waits and compares C with the CPU's A + B, bit for bit.
  // "ok", or "WRONG at (x, y): expected E got G (M of N elements)".
  std::string run_and_check(BlockShape block, GridShape grid);

 private:
  uint64_t nx_, ny_;
  cudaStream_t stream_;
  std::vector<float> expected_;  // A + B, computed on the CPU
  std::vector<float> got_;       // C read back, kept to avoid a fresh large allocation per check
  harness::DeviceBuffer<float> a_, b_, c_;
};

}  // namespace warpfold::lab
