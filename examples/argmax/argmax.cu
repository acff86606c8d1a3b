// The largest of a million floats and the first index holding it, with warpfold::argmax.
// Checks both against std::max_element.
#include <warpfold/reduce.cuh>

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

int main() {
  std::vector<float> values(1 << 20);
  std::mt19937 random(2024);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& v : values) v = normal(random);

  float* d_values = nullptr;
  warpfold::key_value<float>* d_max = nullptr;  // {value, index}
  check(cudaMalloc(&d_values, values.size() * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_max, sizeof *d_max), "cudaMalloc");
  check(cudaMemcpy(d_values, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");

  size_t temp_bytes = 0;
  check(warpfold::argmax(nullptr, temp_bytes, d_values, d_max, values.size()), "warpfold::argmax (size query)");
  void* d_temp = nullptr;
  check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
  check(warpfold::argmax(d_temp, temp_bytes, d_values, d_max, values.size()), "warpfold::argmax");

  warpfold::key_value<float> max{};
  check(cudaMemcpy(&max, d_max, sizeof max, cudaMemcpyDeviceToHost), "cudaMemcpy");
  const auto expected = std::max_element(values.begin(), values.end());  // the first of equals, too
  const bool ok = max.value == *expected && max.index == uint64_t(expected - values.begin());
  std::printf("the largest of %zu floats is %g, at index %llu (%s)\n", values.size(), max.value,
              static_cast<unsigned long long>(max.index), ok ? "as on the CPU" : "WRONG");
  cudaFree(d_temp);
  cudaFree(d_max);
  cudaFree(d_values);
  return ok ? 0 : 1;
}
