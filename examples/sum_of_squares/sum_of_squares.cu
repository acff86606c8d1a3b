// The sum of squares of a million int32 values in one pass, with warpfold::transform_reduce: the
// square is fused into the load. warpfold::square computes in the accumulator type (int64_t
// here), so squares past 2^31 do not wrap. Checks the result against the CPU's.
#include <warpfold/reduce.cuh>

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

int main() {
  std::vector<int32_t> values(1 << 20);
  std::mt19937 random(2024);
  for (int32_t& v : values) v = int32_t(random() % 2000001) - 1000000;  // squares up to 10^12

  int32_t* d_values = nullptr;
  int64_t* d_result = nullptr;
  check(cudaMalloc(&d_values, values.size() * sizeof(int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_result, sizeof(int64_t)), "cudaMalloc");
  check(cudaMemcpy(d_values, values.data(), values.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");

  // Arguments as in CUB: ..., number of items, operator, transform, init (its type is the
  // accumulator's), stream.
  size_t temp_bytes = 0;
  check(warpfold::transform_reduce(nullptr, temp_bytes, d_values, d_result, values.size(), warpfold::plus{},
                                   warpfold::square{}, int64_t{0}),
        "warpfold::transform_reduce (size query)");
  void* d_temp = nullptr;
  check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
  check(warpfold::transform_reduce(d_temp, temp_bytes, d_values, d_result, values.size(), warpfold::plus{},
                                   warpfold::square{}, int64_t{0}),
        "warpfold::transform_reduce");

  int64_t result = 0;
  check(cudaMemcpy(&result, d_result, sizeof result, cudaMemcpyDeviceToHost), "cudaMemcpy");
  int64_t expected = 0;
  for (int32_t v : values) expected += int64_t(v) * v;
  std::printf("the sum of squares of %zu int32 values is %lld (%s)\n", values.size(),
              static_cast<long long>(result), result == expected ? "as on the CPU" : "WRONG");
  cudaFree(d_temp);
  cudaFree(d_result);
  cudaFree(d_values);
  return result == expected ? 0 : 1;
}
