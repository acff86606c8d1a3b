// What stands between a small segmented call and the launch floor: the bench's batch (1000
// segments of 64 floats with CSR offsets, warm in L2) through warpfold::segmented_reduce (with and
// without the input's length) and CUB, against an empty kernel and against the least a call with
// offsets must do (a warp per segment reads its two offsets, then its elements, folds and writes)
// and without offsets. Each call is timed alone with CUDA events from an idle stream, after an
// untimed call of its own, the calls taking turns in an order rotated each round; a row gives the
// median, p10 and p90, and the median over the empty kernel's launched as warpfold launches (the
// driver's cuLaunchKernel, whose host time is less than <<<>>>'s and counts in a call timed from
// an idle stream): the floor of the bench's batch row. Every sum is checked against a
// double-precision reference.
//
//   cmake --build build --target warpfold_batch_floor
//   build/bench/warpfold_batch_floor [--rounds N]

#include "bench_args.hpp"

#include <warpfold/segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
  std::exit(2);
}

__global__ void empty_kernel() {}

// A warp per segment: its two offsets, then its elements (addresses from the first round trip).
// Launched, like the empty kernel, as warpfold launches.
__global__ void warp_per_segment(const float* in, const int* offsets, float* out, int segments) {
  const int w = int((blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = int(threadIdx.x % 32);
  if (w >= segments) return;
  const int begin = offsets[w], end = offsets[w + 1];
  float v = 0.0f;
  for (int i = begin + lane; i < end; i += 32) v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) out[w] = v;
}

// The same without offsets: segment w starts at w * length (one round trip).
__global__ void warp_per_row(const float* in, float* out, int segments, int length) {
  const int w = int((blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = int(threadIdx.x % 32);
  if (w >= segments) return;
  float v = 0.0f;
  for (int i = w * length + lane; i < (w + 1) * length; i += 32) v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) out[w] = v;
}

struct Contender {
  std::string name;
  std::function<void()> call;
  bool checked;  // writes the sums
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 300;
  if (!warpfold_bench::parse_rounds(argc, argv, 10, 100000, rounds)) {
    std::fprintf(stderr, "usage: %s [--rounds N]   (N: timed rounds, 10 to 100000; default 300)\n", argv[0]);
    return 2;
  }
  constexpr int kSegments = 1000, kLength = 64, kItems = kSegments * kLength;
  std::vector<float> host(kItems);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : host) v = uniform(rng);
  std::vector<int> offsets(kSegments + 1);
  for (int s = 0; s <= kSegments; ++s) offsets[s] = s * kLength;

  float *in = nullptr, *out = nullptr;
  int* d_offsets = nullptr;
  check(cudaMalloc(&in, kItems * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&out, kSegments * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_offsets, offsets.size() * sizeof(int)), "cudaMalloc");
  check(cudaMemcpy(in, host.data(), kItems * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");

  const int* begin = d_offsets;
  const int* end = d_offsets + 1;
  size_t plain_bytes = 0, length_bytes = 0, cub_bytes = 0;
  check(warpfold::segmented_reduce(nullptr, plain_bytes, in, out, kSegments, begin, end, warpfold::plus{}, 0.0f, stream),
        "warpfold size");
  check(warpfold::segmented_reduce(nullptr, length_bytes, in, uint64_t(kItems), out, kSegments, begin, end,
                                   warpfold::plus{}, 0.0f, stream),
        "warpfold size (length)");
  check(cub::DeviceSegmentedReduce::Sum(nullptr, cub_bytes, in, out, kSegments, begin, end, stream), "cub size");
  void *plain_temp = nullptr, *length_temp = nullptr, *cub_temp = nullptr;
  check(cudaMalloc(&plain_temp, plain_bytes), "cudaMalloc");
  check(cudaMalloc(&length_temp, length_bytes), "cudaMalloc");
  check(cudaMalloc(&cub_temp, std::max<size_t>(cub_bytes, 1)), "cudaMalloc");

  const unsigned warp_blocks = (kSegments * 32 + 255) / 256;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const std::vector<Contender> contenders = {
      {"empty kernel", [&] {
         check(warpfold::detail::launch_kernel<&empty_kernel>(device, dim3(1), dim3(32), nullptr, stream), "empty");
       }, false},
      {"empty kernel, <<<>>>", [&] { empty_kernel<<<1, 32, 0, stream>>>(); }, false},
      {"warpfold", [&] {
         size_t b = plain_bytes;
         check(warpfold::segmented_reduce(plain_temp, b, in, out, kSegments, begin, end, warpfold::plus{}, 0.0f, stream),
               "warpfold");
       }, true},
      {"warpfold, with length", [&] {
         size_t b = length_bytes;
         check(warpfold::segmented_reduce(length_temp, b, in, uint64_t(kItems), out, kSegments, begin, end,
                                          warpfold::plus{}, 0.0f, stream),
               "warpfold (length)");
       }, true},
      {"cub", [&] {
         size_t b = cub_bytes;
         check(cub::DeviceSegmentedReduce::Sum(cub_temp, b, in, out, kSegments, begin, end, stream), "cub");
       }, true},
      {"warp per segment", [&] {
         const float* from = in;
         int segments = kSegments;
         void* args[] = {&from, &d_offsets, &out, &segments};
         check(warpfold::detail::launch_kernel<&warp_per_segment>(device, dim3(warp_blocks), dim3(256), args, stream),
               "warp per segment");
       }, true},
      {"warp per row, no offsets", [&] {
         const float* from = in;
         int segments = kSegments, length = kLength;
         void* args[] = {&from, &out, &segments, &length};
         check(warpfold::detail::launch_kernel<&warp_per_row>(device, dim3(warp_blocks), dim3(256), args, stream),
               "warp per row");
       }, true},
  };

  std::vector<double> reference(kSegments, 0.0);
  for (int s = 0; s < kSegments; ++s)
    for (int k = 0; k < kLength; ++k) reference[s] += host[s * kLength + k];
  std::vector<float> got(kSegments);
  for (const Contender& c : contenders) {  // each checked once, from a poisoned output
    if (!c.checked) continue;
    check(cudaMemset(out, 0xff, kSegments * sizeof(float)), "cudaMemset");
    c.call();
    check(cudaStreamSynchronize(stream), c.name.c_str());
    check(cudaMemcpy(got.data(), out, kSegments * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int s = 0; s < kSegments; ++s) {
      if (!(std::fabs(got[s] - reference[s]) <= 1e-4)) {
        std::fprintf(stderr, "%s: segment %d is %g, not %g\n", c.name.c_str(), s, got[s], reference[s]);
        return 3;
      }
    }
  }

  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<std::vector<float>> times(contenders.size());
  const int warmup = 3;
  for (int r = 0; r < warmup + rounds; ++r) {
    for (size_t k = 0; k < contenders.size(); ++k) {
      const Contender& c = contenders[(k + size_t(r)) % contenders.size()];
      c.call();  // untimed, so that the timed call follows its own
      check(cudaStreamSynchronize(stream), c.name.c_str());
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      c.call();
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), c.name.c_str());
      float ms = 0.0f;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (r >= warmup) times[(k + size_t(r)) % contenders.size()].push_back(ms * 1000.0f);
    }
  }
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  std::printf("%s: %d segments of %d floats, warm in L2, %d rounds (every result checked)\n", props.name, kSegments,
              kLength, rounds);
  double floor_us = 0.0;
  for (size_t k = 0; k < contenders.size(); ++k) {
    std::vector<float> v = times[k];
    std::sort(v.begin(), v.end());
    const double median = v[v.size() / 2];
    if (k == 0) floor_us = median;
    std::printf("%-26s median %6.2f us  p10 %6.2f  p90 %6.2f  x empty %.2f\n", contenders[k].name.c_str(), median,
                v[v.size() / 10], v[v.size() * 9 / 10], median / floor_us);
  }
  return 0;
}
