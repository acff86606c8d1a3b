// Sums a million int32 values into an int64 with warpfold::reduce, in CUB's two phases: ask how
// much temp storage the reduce needs, then reduce. Checks the sum against the CPU's.
#include <warpfold/reduce.cuh>
#include <warpfold/version.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

// Stops on a failed CUDA call; without a usable GPU with exit code 77, which ctest reads as "skipped".
static void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  const bool no_device = rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver;
  std::fprintf(stderr, "%s: %s%s\n", what, cudaGetErrorString(rc), no_device ? " (no usable CUDA device)" : "");
  std::exit(no_device ? 77 : 1);
}

int main() {
  std::vector<int32_t> values(1 << 20);
  std::mt19937 random(2024);
  for (int32_t& v : values) v = int32_t(random() % 2000001) - 1000000;

  int32_t* d_values = nullptr;
  int64_t* d_sum = nullptr;
  check(cudaMalloc(&d_values, values.size() * sizeof(int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_sum, sizeof(int64_t)), "cudaMalloc");
  check(cudaMemcpy(d_values, values.data(), values.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");

  // The accumulator is the type of init: int64_t, so the sum cannot wrap at 2^31.
  size_t temp_bytes = 0;
  check(warpfold::reduce(nullptr, temp_bytes, d_values, d_sum, values.size(), warpfold::plus{}, int64_t{0}),
        "warpfold::reduce (size query)");
  void* d_temp = nullptr;
  check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
  check(warpfold::reduce(d_temp, temp_bytes, d_values, d_sum, values.size(), warpfold::plus{}, int64_t{0}),
        "warpfold::reduce");

  int64_t sum = 0;
  check(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost), "cudaMemcpy");
  const int64_t expected = std::accumulate(values.begin(), values.end(), int64_t{0});
  std::printf("warpfold %s: the sum of %zu int32 values is %lld (%s)\n", WARPFOLD_VERSION_STRING, values.size(),
              static_cast<long long>(sum), sum == expected ? "as on the CPU" : "WRONG");
  cudaFree(d_temp);
  cudaFree(d_sum);
  cudaFree(d_values);
  return sum == expected ? 0 : 1;
}
