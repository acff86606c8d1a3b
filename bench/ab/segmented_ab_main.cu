// scripts/segmented-ab.sh's program: this tree's segmented_reduce against an older tree's and
// CUB, in one process, round by round, on CSR float sums over 2^26 elements whose lengths cover
// every class (lane, warp, block, long) and the alignments that cost (4095, 4097). Each round times
// a batch of back-to-back calls of each of the three between CUDA events, after an untimed call of
// its own, in an order of the round's own (harness::round_order); the per-round ratios old / new
// and CUB / new give medians and bootstrap 95% intervals (harness/stats.hpp). The old and new
// outputs must be bit for bit the same (where a change keeps every fold order), before and after
// the timed calls, and the new ones within rounding of a double-precision sum.
#include "../csr_shapes.hpp"
#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/splitmix64.hpp"
#include "harness/stats.hpp"

#include <cub/device/device_segmented_reduce.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define AB_DECLARE(side)                                                                                     \
  namespace side {                                                                                           \
  cudaError_t csr_sum(void*, size_t&, const float*, float*, uint64_t, const int32_t*, cudaStream_t);        \
  }
AB_DECLARE(ab_new)
AB_DECLARE(ab_old)

namespace {

using warpfold::harness::DeviceBuffer;
using warpfold_bench::csr_offsets;
using warpfold_bench::uniform_lengths;
using warpfold_bench::uniform_name;
constexpr uint64_t kTotal = uint64_t(1) << 26;
constexpr int kBatch = 5;  // calls per sample

struct Shape {
  std::string name;
  std::vector<int32_t> offsets;  // CSR, within kTotal
};

std::vector<Shape> shapes(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Shape> all;
  const auto equal = [&](uint64_t len) {
    all.push_back({"equal " + std::to_string(len), csr_offsets(std::vector<uint64_t>(kTotal / len, len), kTotal)});
  };
  const auto uniform = [&](uint64_t lo, uint64_t hi) {
    all.push_back({uniform_name(lo, hi), csr_offsets(uniform_lengths(lo, hi, kTotal, rng), kTotal)});
  };
  for (uint64_t len : {4u, 64u, 1000u, 2000u, 4095u, 4097u, 4100u, 8192u, 12288u, 32768u, 65536u}) equal(len);
  uniform(0, 8);
  uniform(0, 128);
  uniform(0, 512);
  uniform(0, 2048);
  uniform(0, 4096);
  uniform(2048, 6144);
  uniform(0, 8192);
  // Pareto lengths (exponent 0.6, from 8) for half the data, one segment of the other half among them.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<uint64_t> lengths;
  uint64_t sum = 0;
  while (sum < kTotal / 2) {
    lengths.push_back(uint64_t(std::min(1.0e6, 8.0 / std::pow(1.0 - unit(rng), 1.0 / 0.6))));
    sum += lengths.back();
  }
  lengths.insert(lengths.begin() + std::ptrdiff_t(lengths.size() / 3), sum < kTotal ? kTotal - sum : 0);
  all.push_back({"power law", csr_offsets(lengths, kTotal)});
  return all;
}

// One library's call, its temp storage and output.
struct Contender {
  std::function<cudaError_t(void*, size_t&, float*)> call;
  DeviceBuffer<char> temp{1};
  DeviceBuffer<float> out{1};
  size_t bytes = 0;
  std::vector<double> ms;

  void prepare(uint64_t segments) {
    WARPFOLD_CUDA_CHECK(call(nullptr, bytes, nullptr));
    temp = DeviceBuffer<char>(bytes > 0 ? bytes : 1);
    out = DeviceBuffer<float>(segments > 0 ? segments : 1);
  }
  void run() { WARPFOLD_CUDA_CHECK(call(temp.get(), bytes, out.get())); }
  std::vector<float> read(uint64_t segments) const {
    std::vector<float> host(segments);
    WARPFOLD_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), segments * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }
};

// Segments whose result is not within rounding of a double-precision sum of their elements: a
// float fold of n values in [-1, 1) in a tree errs by about sqrt(n) ulps of 1, far below one lost
// element or piece.
uint64_t wrong_sums(const std::vector<float>& x, const Shape& s, const std::vector<float>& got) {
  uint64_t wrong = 0;
  for (size_t k = 0; k + 1 < s.offsets.size(); ++k) {
    double sum = 0;
    for (int32_t j = s.offsets[k]; j < s.offsets[k + 1]; ++j) sum += x[size_t(j)];
    const double len = double(s.offsets[k + 1] - s.offsets[k]);
    if (!(std::fabs(double(got[k]) - sum) <= 1e-5 * std::sqrt(len + 1.0))) ++wrong;
  }
  return wrong;
}

// One shape: false where the old and new bits differ or a new sum is wrong.
bool compare(const Shape& s, const float* in, const std::vector<float>& x, int rounds, cudaStream_t stream) {
  const uint64_t segments = s.offsets.size() - 1;
  DeviceBuffer<int32_t> offsets(s.offsets.size());
  WARPFOLD_CUDA_CHECK(cudaMemcpy(offsets.get(), s.offsets.data(), s.offsets.size() * sizeof(int32_t),
                                 cudaMemcpyHostToDevice));
  const int32_t* off = offsets.get();
  std::vector<Contender> c(3);
  c[0].call = [=](void* t, size_t& b, float* o) { return ab_new::csr_sum(t, b, in, o, segments, off, stream); };
  c[1].call = [=](void* t, size_t& b, float* o) { return ab_old::csr_sum(t, b, in, o, segments, off, stream); };
  c[2].call = [=](void* t, size_t& b, float* o) {
    return cub::DeviceSegmentedReduce::Sum(t, b, in, o, int(segments), off, off + 1, stream);
  };
  for (Contender& k : c) {
    k.prepare(segments);
    k.run();
  }
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> first_new = c[0].read(segments);
  const bool same_first = std::memcmp(first_new.data(), c[1].read(segments).data(), segments * sizeof(float)) == 0;
  const uint64_t wrong = wrong_sums(x, s, first_new);
  const warpfold::harness::EventPair events;
  auto nothing = [] {};
  for (int r = -2; r < rounds; ++r) {  // two rounds of warm-up
    for (size_t j : warpfold::harness::round_order(c.size(), size_t(r + 2))) {
      Contender& k = c[j];
      k.run();  // untimed: the timed batch follows a call of its own, not another contender's
      auto calls = [&] {
        for (int b = 0; b < kBatch; ++b) k.run();
      };
      const double ms = warpfold::harness::time_once(stream, events, nothing, calls) / kBatch;
      if (r >= 0) k.ms.push_back(ms);
    }
  }
  // The timed calls reused temp storage under new tags: their last outputs must be the first ones.
  const std::vector<float> last_new = c[0].read(segments);
  const bool same_bits = same_first &&
                         std::memcmp(last_new.data(), first_new.data(), segments * sizeof(float)) == 0 &&
                         std::memcmp(last_new.data(), c[1].read(segments).data(), segments * sizeof(float)) == 0;
  const auto old_vs_new = warpfold::harness::per_round_ratio(c[1].ms, c[0].ms);
  const auto cub_vs_new = warpfold::harness::per_round_ratio(c[2].ms, c[0].ms);
  std::printf("%-22s %9llu %8.1f %8.1f %8.1f %7.3f [%5.3f, %5.3f] %-12s %7.3f [%5.3f, %5.3f] %s%s\n", s.name.c_str(),
              static_cast<unsigned long long>(segments), warpfold::harness::median_of(c[0].ms) * 1e3,
              warpfold::harness::median_of(c[1].ms) * 1e3, warpfold::harness::median_of(c[2].ms) * 1e3,
              old_vs_new.median, old_vs_new.low, old_vs_new.high,
              old_vs_new.holds_one() ? "within noise" : old_vs_new.median > 1 ? "faster" : "SLOWER", cub_vs_new.median,
              cub_vs_new.low, cub_vs_new.high, same_bits ? "bits same" : "BITS DIFFER",
              wrong == 0 ? "" : (", " + std::to_string(wrong) + " WRONG").c_str());
  return same_bits && wrong == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  if (rounds < 2 || rounds > 10000) {
    std::fprintf(stderr, "usage: segmented_ab [ROUNDS, 2 to 10000]\n");
    return 2;
  }
  cudaDeviceProp p{};
  if (cudaError_t rc = cudaGetDeviceProperties(&p, 0); rc != cudaSuccess) {
    std::fprintf(stderr, "segmented-ab: no usable CUDA device: %s\n", cudaGetErrorString(rc));
    return 1;
  }
  try {
    std::vector<float> x(kTotal);
    for (uint64_t i = 0; i < kTotal; ++i) {  // values in [-1, 1) from a hash of the index: never all zeros
      const uint64_t bits = warpfold::harness::mix64((i + 0x5eedull) * warpfold::harness::kSplitMix64Step);
      x[i] = float(double(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    }
    DeviceBuffer<float> in(kTotal);
    WARPFOLD_CUDA_CHECK(cudaMemcpy(in.get(), x.data(), kTotal * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t stream = nullptr;
    WARPFOLD_CUDA_CHECK(cudaStreamCreate(&stream));
    std::printf("%s; CSR float sums over 2^26 elements, %d rounds of %d calls; us per call; old/new and cub/new: "
                "per-round medians [95%% interval]\n",
                p.name, rounds, kBatch);
    std::printf("%-22s %9s %8s %8s %8s %-22s %-12s %s\n", "shape", "segments", "new us", "old us", "cub us",
                "  old/new", "", "  cub/new");
    bool ok = true;
    for (const Shape& s : shapes(7)) ok &= compare(s, in.get(), x, rounds, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamDestroy(stream));
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "segmented-ab: %s\n", e.what());
    return 1;
  }
}
