#include "lab/grid_shape/matrix_workspace.hpp"

#include "lab/grid_shape/sum_matrix_launch.hpp"

#include <warpfold/error.hpp>

#include <cstdio>
#include <cstring>
#include <random>

namespace warpfold::lab {

std::vector<float> book_matrix_data(size_t count, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<float> v(count);
  // Each 64-bit draw gives eight bytes, each standing for one rand() & 0xFF.
  uint64_t bits = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i % 8 == 0) bits = gen();
    v[i] = float(bits & 0xFF) / 10.0f;
    bits >>= 8;
  }
  return v;
}

size_t MatrixWorkspace::bytes_needed(uint64_t nx, uint64_t ny) { return 3 * nx * ny * sizeof(float); }

size_t MatrixWorkspace::host_bytes_needed(uint64_t nx, uint64_t ny) { return 4 * nx * ny * sizeof(float); }

MatrixWorkspace::MatrixWorkspace(uint64_t nx, uint64_t ny, uint64_t seed, cudaStream_t stream)
    : nx_(nx), ny_(ny), stream_(stream), got_(nx * ny), a_(nx * ny), b_(nx * ny), c_(nx * ny) {
  const std::vector<float> a = book_matrix_data(nx * ny, seed);
  const std::vector<float> b = book_matrix_data(nx * ny, seed + 1);
  expected_.resize(nx * ny);
  for (size_t i = 0; i < expected_.size(); ++i) expected_[i] = a[i] + b[i];
  // On the workspace's stream, then waited for: a pageable copy may return before its DMA lands,
  // and the host vectors die at the end of this constructor.
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(a_.get(), a.data(), a_.bytes(), cudaMemcpyHostToDevice, stream_));
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(b_.get(), b.data(), b_.bytes(), cudaMemcpyHostToDevice, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void MatrixWorkspace::launch(BlockShape block, GridShape grid) const {
  launch_sum_matrix(a_.get(), b_.get(), c_.get(), int(nx_), int(ny_), dim3(unsigned(grid.x), unsigned(grid.y)),
                    dim3(block.x, block.y), stream_);
}

std::string MatrixWorkspace::run_and_check(BlockShape block, GridShape grid) {
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), stream_));  // NaN everywhere
  launch(block, grid);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(got_.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (std::memcmp(got_.data(), expected_.data(), c_.bytes()) == 0) return "ok";

  uint64_t mismatches = 0, first = 0;
  for (uint64_t i = 0; i < got_.size(); ++i) {
    if (std::memcmp(&got_[i], &expected_[i], sizeof(float)) == 0) continue;
    if (mismatches++ == 0) first = i;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "WRONG at (%llu, %llu): expected %g got %g (%llu of %llu elements)",
                static_cast<unsigned long long>(first % nx_), static_cast<unsigned long long>(first / nx_),
                double(expected_[first]), double(got_[first]), static_cast<unsigned long long>(mismatches),
                static_cast<unsigned long long>(got_.size()));
  return buf;
}

}  // namespace warpfold::lab
