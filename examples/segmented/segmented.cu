// Many reductions in one call: a sum per group of sorted keys with warpfold::segmented_reduce
// (CSR offsets, groups of any length, empty ones included), then the column sums of a row-major
// matrix with warpfold::reduce_axis (x.sum(dim=0)). int32 values into int64 sums, checked against
// the CPU's.
#include <warpfold/reduce_axis.cuh>
#include <warpfold/segmented_reduce.cuh>
#include <warpfold/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// Stops on a failed CUDA call; without a usable GPU with exit code 77, which ctest reads as "skipped".
static void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  const bool no_device = rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver;
  std::fprintf(stderr, "%s: %s%s\n", what, cudaGetErrorString(rc), no_device ? " (no usable CUDA device)" : "");
  std::exit(no_device ? 77 : 1);
}

// Runs a two-phase warpfold call (size query, then the call) with temp storage of its own.
template <class Call>
static void run_two_phase(Call call, const char* what) {
  size_t temp_bytes = 0;
  check(call(nullptr, temp_bytes), what);
  void* d_temp = nullptr;
  check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
  check(call(d_temp, temp_bytes), what);
  check(cudaDeviceSynchronize(), what);
  cudaFree(d_temp);
}

int main() {
  const uint64_t rows = 1000, cols = 777;
  std::vector<int32_t> values(rows * cols);
  std::mt19937 random(2024);
  for (int32_t& v : values) v = int32_t(random() % 2001) - 1000;
  // Groups of 0 to 5000 values, back to back: offsets[g] .. offsets[g + 1].
  std::vector<int32_t> offsets{0};
  while (offsets.back() < int32_t(values.size())) {
    offsets.push_back(std::min<int32_t>(offsets.back() + int32_t(random() % 5001), int32_t(values.size())));
  }
  const uint64_t groups = offsets.size() - 1;

  int32_t *d_values = nullptr, *d_offsets = nullptr;
  int64_t *d_group_sums = nullptr, *d_column_sums = nullptr;
  check(cudaMalloc(&d_values, values.size() * sizeof(int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_offsets, offsets.size() * sizeof(int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_group_sums, groups * sizeof(int64_t)), "cudaMalloc");
  check(cudaMalloc(&d_column_sums, cols * sizeof(int64_t)), "cudaMalloc");
  check(cudaMemcpy(d_values, values.data(), values.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");

  // CSR offsets: segment g begins at offsets[g] and ends where g + 1 begins.
  run_two_phase([&](void* t, size_t& b) {
    return warpfold::segmented_reduce(t, b, d_values, d_group_sums, groups, d_offsets, d_offsets + 1,
                                      warpfold::plus{}, int64_t{0});
  }, "warpfold::segmented_reduce");
  // x.sum(dim=0) of x[rows][cols]: nothing before the reduced dim, cols after it.
  run_two_phase([&](void* t, size_t& b) {
    return warpfold::reduce_axis(t, b, d_values, d_column_sums, warpfold::axis_shape::contiguous(1, rows, cols),
                                 warpfold::plus{}, int64_t{0});
  }, "warpfold::reduce_axis");

  std::vector<int64_t> group_sums(groups), column_sums(cols);
  check(cudaMemcpy(group_sums.data(), d_group_sums, groups * sizeof(int64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(column_sums.data(), d_column_sums, cols * sizeof(int64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
  uint64_t wrong = 0;
  for (uint64_t g = 0; g < groups; ++g) {
    int64_t expected = 0;
    for (int32_t i = offsets[g]; i < offsets[g + 1]; ++i) expected += values[size_t(i)];
    wrong += group_sums[g] != expected;
  }
  for (uint64_t c = 0; c < cols; ++c) {
    int64_t expected = 0;
    for (uint64_t r = 0; r < rows; ++r) expected += values[r * cols + c];
    wrong += column_sums[c] != expected;
  }
  std::printf("warpfold %s: %llu group sums and %llu column sums of %zu int32 values (%s)\n", WARPFOLD_VERSION_STRING,
              static_cast<unsigned long long>(groups), static_cast<unsigned long long>(cols), values.size(),
              wrong == 0 ? "as on the CPU" : "WRONG");
  cudaFree(d_column_sums);
  cudaFree(d_group_sums);
  cudaFree(d_offsets);
  cudaFree(d_values);
  return wrong == 0 ? 0 : 1;
}
