// scripts/ab-bench.sh's program: this tree's reduce against an older tree's, in one process, round
// by round. Each round times a batch of back-to-back calls of each side (the order alternating),
// between CUDA events; the per-round ratio old / new (above 1: this tree is faster) gives a median
// and a bootstrap 95% interval (harness/stats.hpp). Both sides read the same random input, and
// their results must agree (exactly for integers and max, to rounding for float sums).
#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/splitmix64.hpp"
#include "harness/stats.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
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

using warpfold::harness::DeviceBuffer;

// Values in [-1, 1) (integers in [-1000, 1000)) from a hash of the index: never all zeros.
template <class T>
__global__ void fill(T* data, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t bits = warpfold::harness::mix64((i + seed) * warpfold::harness::kSplitMix64Step);
    const double u = double(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    if constexpr (sizeof(T) == 4 && T(0.5) == T(0)) data[i] = T(u * 1000.0);
    else data[i] = T(u);
  }
}

template <class Acc>
double as_double(const Acc& x) {
  if constexpr (sizeof(Acc) == 2) return double(__half2float(x));
  else return double(x);
}

// One side's samples, last result and buffers (kept across its rounds).
struct side_result {
  std::vector<double> ms;
  double value = 0;
  DeviceBuffer<char> temp, out;
};

// One sample: a batch of back-to-back calls between the events, in ms per call.
template <class T, class Acc, class Call>
void time_side(Call call, const T* in, uint64_t n, int batch, const warpfold::harness::EventPair& events,
               side_result& side) {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(call(nullptr, bytes, in, static_cast<Acc*>(nullptr), n, nullptr));
  if (bytes > side.temp.bytes()) side.temp = DeviceBuffer<char>(bytes);
  if (sizeof(Acc) > side.out.bytes()) side.out = DeviceBuffer<char>(sizeof(Acc));
  Acc* out = reinterpret_cast<Acc*>(side.out.get());
  auto nothing = [] {};
  auto calls = [&] {
    for (int b = 0; b < batch; ++b) WARPFOLD_CUDA_CHECK(call(side.temp.get(), bytes, in, out, n, nullptr));
  };
  side.ms.push_back(warpfold::harness::time_once(nullptr, events, nothing, calls) / batch);
  Acc host{};
  WARPFOLD_CUDA_CHECK(cudaMemcpy(&host, out, sizeof(Acc), cudaMemcpyDeviceToHost));
  side.value = as_double(host);
}

template <class T, class Acc, class NewCall, class OldCall>
bool compare(const char* label, int log2_n, int rounds, NewCall new_call, OldCall old_call) {
  const uint64_t n = uint64_t(1) << log2_n;
  const DeviceBuffer<T> input(n);
  const T* in = input.get();
  fill<<<1024, 256>>>(input.get(), n, 0x5eedull + log2_n);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  const warpfold::harness::EventPair events;
  const int batch = log2_n <= 22 ? 20 : 2;
  side_result a, b, warm;
  for (int w = 0; w < 3; ++w) {
    time_side<T, Acc>(new_call, in, n, batch, events, warm);
    time_side<T, Acc>(old_call, in, n, batch, events, warm);
  }
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      time_side<T, Acc>(new_call, in, n, batch, events, a);
      time_side<T, Acc>(old_call, in, n, batch, events, b);
    } else {
      time_side<T, Acc>(old_call, in, n, batch, events, b);
      time_side<T, Acc>(new_call, in, n, batch, events, a);
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
  return agree;
}

// The sizes a run covers: 2^low, 2^(low + step), ... up to 2^high, within each type's own range.
struct size_range {
  int step = 2, low = 10, high = 30;
};

// Every type and size: false when a pair of results disagrees.
bool compare_all(int rounds, const size_range& sizes) {
  bool ok = true;
  auto call_new = [](auto&&... a) { return ab_new::sum(a...); };
  auto call_old = [](auto&&... a) { return ab_old::sum(a...); };
  auto max_new = [](auto&&... a) { return ab_new::max(a...); };
  auto max_old = [](auto&&... a) { return ab_old::max(a...); };
  const auto each_size = [&](int type_high, auto&& compare_at) {
    for (int k = sizes.low; k <= std::min(type_high, sizes.high); k += sizes.step) ok &= compare_at(k);
  };
  each_size(30, [&](int k) { return compare<int32_t, int64_t>("int32 sum", k, rounds, call_new, call_old); });
  each_size(30, [&](int k) { return compare<float, float>("float sum", k, rounds, call_new, call_old); });
  each_size(27, [&](int k) { return compare<double, double>("double sum", k, rounds, call_new, call_old); });
  each_size(29, [&](int k) { return compare<__half, __half>("half max", k, rounds, max_new, max_old); });
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 60;
  size_range sizes;
  if (argc > 2) sizes.step = std::atoi(argv[2]);
  if (argc > 3) sizes.low = std::atoi(argv[3]);
  if (argc > 4) sizes.high = std::atoi(argv[4]);
  if (rounds < 2 || sizes.step < 1 || sizes.low < 10 || sizes.high > 30 || sizes.low > sizes.high) {
    std::fprintf(stderr, "usage: ab_bench [ROUNDS>=2] [LOG2_STEP>=1] [LOG2_MIN>=10] [LOG2_MAX<=30]\n");
    return 2;
  }
  cudaDeviceProp p{};
  if (cudaError_t rc = cudaGetDeviceProperties(&p, 0); rc != cudaSuccess) {
    std::fprintf(stderr, "ab-bench: no usable CUDA device: %s\n", cudaGetErrorString(rc));
    return 1;
  }
  std::printf("%s; %d rounds; 2^%d to 2^%d; us per call (batches of 20 below 2^23, of 2 above); ratio = old / new\n",
              p.name, rounds, sizes.low, sizes.high);
  std::printf("%-10s %-5s %10s %10s %8s %16s\n", "reduce", "n", "new us", "old us", "ratio", "95% interval");
  try {
    return compare_all(rounds, sizes) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ab-bench: %s\n", e.what());
    return 1;
  }
}
