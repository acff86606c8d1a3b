// scripts/ab-bench.sh's program: this tree's reduce against an older tree's, in one process, round
// by round. Each round times a batch of back-to-back calls of each side (the order alternating),
// between CUDA events; the per-round ratio old / new (above 1: this tree is faster) gives a median
// and a bootstrap 95% interval (harness/stats.hpp). Both sides read the same random input, and
// their results must agree (exactly for integers and max, to rounding for float sums).
#include "harness/stats.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define AB_DECLARE(side)                                                                          \
  namespace side {                                                                                \
  cudaError_t sum(void*, size_t&, const int32_t*, int64_t*, uint64_t, cudaStream_t);             \
  cudaError_t sum(void*, size_t&, const float*, float*, uint64_t, cudaStream_t);                 \
  cudaError_t sum(void*, size_t&, const double*, double*, uint64_t, cudaStream_t);               \
  cudaError_t max(void*, size_t&, const __half*, __half*, uint64_t, cudaStream_t);               \
  }
AB_DECLARE(ab_new)
AB_DECLARE(ab_old)

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "ab-bench: %s: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

// Values in [-1, 1) (integers in [-1000, 1000)) from a hash of the index: never all zeros.
template <class T>
__global__ void fill(T* data, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t z = (i + seed) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = double(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    if constexpr (sizeof(T) == 4 && T(0.5) == T(0)) data[i] = T(u * 1000.0);
    else data[i] = T(u);
  }
}

template <class Acc>
double as_double(const Acc& x) {
  if constexpr (sizeof(Acc) == 2) return double(__half2float(x));
  else return double(x);
}

struct side_result {
  std::vector<double> ms;
  double value = 0;
};

template <class T, class Acc, class Call>
void time_side(Call call, const T* in, uint64_t n, int batch, cudaEvent_t start, cudaEvent_t stop, side_result& out) {
  size_t bytes = 0;
  Acc* d_out = nullptr;
  void* temp = nullptr;
  check(call(nullptr, bytes, in, d_out, n, nullptr), "temp query");
  check(cudaMalloc(&temp, bytes), "cudaMalloc temp");
  check(cudaMalloc(&d_out, sizeof(Acc)), "cudaMalloc out");
  check(cudaEventRecord(start), "event");
  for (int b = 0; b < batch; ++b) check(call(temp, bytes, in, d_out, n, nullptr), "reduce");
  check(cudaEventRecord(stop), "event");
  check(cudaEventSynchronize(stop), "sync");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  out.ms.push_back(ms / batch);
  Acc host{};
  check(cudaMemcpy(&host, d_out, sizeof(Acc), cudaMemcpyDeviceToHost), "copy back");
  out.value = as_double(host);
  check(cudaFree(temp), "free");
  check(cudaFree(d_out), "free");
}

template <class T, class Acc, class NewCall, class OldCall>
bool compare(const char* label, int log2_n, int rounds, NewCall new_call, OldCall old_call) {
  const uint64_t n = uint64_t(1) << log2_n;
  T* in = nullptr;
  check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc input");
  fill<<<1024, 256>>>(in, n, 0x5eedull + log2_n);
  check(cudaGetLastError(), "fill");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const int batch = log2_n <= 22 ? 20 : 2;
  side_result a, b, warm;
  for (int w = 0; w < 3; ++w) {
    time_side<T, Acc>(new_call, in, n, batch, start, stop, warm);
    time_side<T, Acc>(old_call, in, n, batch, start, stop, warm);
  }
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      time_side<T, Acc>(new_call, in, n, batch, start, stop, a);
      time_side<T, Acc>(old_call, in, n, batch, start, stop, b);
    } else {
      time_side<T, Acc>(old_call, in, n, batch, start, stop, b);
      time_side<T, Acc>(new_call, in, n, batch, start, stop, a);
    }
  }
  const auto ratio = warpfold::harness::per_round_ratio(b.ms, a.ms);
  const double tolerance = std::is_floating_point_v<Acc> && sizeof(T) > 2 ? 1e-5 * std::sqrt(double(n)) : 0.0;
  const bool agree = std::fabs(a.value - b.value) <= tolerance * std::fmax(1.0, std::fabs(b.value)) ||
                     (std::isnan(a.value) && std::isnan(b.value));
  std::printf("%-10s 2^%-3d %10.2f %10.2f %8.3f [%6.3f, %6.3f] %s %s\n", label, log2_n,
              warpfold::harness::median_of(a.ms) * 1e3, warpfold::harness::median_of(b.ms) * 1e3, ratio.median,
              ratio.low, ratio.high, ratio.holds_one() ? "within noise" : ratio.median > 1 ? "faster" : "SLOWER",
              agree ? "" : "RESULTS DIFFER");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  check(cudaFree(in), "free input");
  return agree;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 60;
  const int step = argc > 2 ? std::atoi(argv[2]) : 2;
  if (rounds < 2 || step < 1) {
    std::fprintf(stderr, "usage: ab_bench [ROUNDS>=2] [LOG2_STEP>=1]\n");
    return 2;
  }
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "device properties");
  std::printf("%s; %d rounds; us per call (batches of 20 below 2^23, of 2 above); ratio = old / new\n", p.name,
              rounds);
  std::printf("%-10s %-5s %10s %10s %8s %16s\n", "reduce", "n", "new us", "old us", "ratio", "95% interval");
  bool ok = true;
  auto call_new = [](auto&&... a) { return ab_new::sum(a...); };
  auto call_old = [](auto&&... a) { return ab_old::sum(a...); };
  auto max_new = [](auto&&... a) { return ab_new::max(a...); };
  auto max_old = [](auto&&... a) { return ab_old::max(a...); };
  for (int k = 10; k <= 30; k += step) ok &= compare<int32_t, int64_t>("int32 sum", k, rounds, call_new, call_old);
  for (int k = 10; k <= 30; k += step) ok &= compare<float, float>("float sum", k, rounds, call_new, call_old);
  for (int k = 10; k <= 27; k += step) ok &= compare<double, double>("double sum", k, rounds, call_new, call_old);
  for (int k = 10; k <= 29; k += step) ok &= compare<__half, __half>("half max", k, rounds, max_new, max_old);
  return ok ? 0 : 1;
}
