#include "harness/bandwidth_probe.hpp"
#include "harness/device_buffer.hpp"
#include "harness/device_info.hpp"
#include "harness/gpu_timer.hpp"

#include <algorithm>

namespace warpfold::harness {
namespace {

constexpr int kProbeThreads = 256;
constexpr int kLoadsInFlight = 4;

// Grid-stride read of int4 vectors, four independent loads in flight per thread. The XOR result is
// stored only under a condition the compiler cannot prove false, so no load is optimised away.
__global__ void stream_read(const int4* __restrict__ data, size_t count, int* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int acc = 0;
  for (; i + (kLoadsInFlight - 1) * stride < count; i += kLoadsInFlight * stride) {
    int4 v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = __ldcs(data + i + k * stride);
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < count; i += stride) {
    const int4 v = __ldcs(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7f3a9e11) *sink = acc;
}

}  // namespace

ReadBandwidth measure_read_bandwidth(cudaStream_t stream, int reps) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  const DeviceSummary d = query_device(device);
  size_t free_bytes = 0, total_bytes = 0;
  WARPFOLD_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Far larger than L2 so the figure is DRAM's, small enough to leave room for the caller.
  const size_t wanted = std::max<size_t>(size_t(1) << 30, 16 * d.l2_bytes);
  const size_t bytes = std::min(wanted, free_bytes / 4) / sizeof(int4) * sizeof(int4);

  DeviceBuffer<int4> buffer(bytes / sizeof(int4));
  DeviceBuffer<int> sink(1);
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0x5b, buffer.bytes(), stream));  // not zeros

  int blocks_per_sm = 0;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, stream_read, kProbeThreads, 0));
  const int grid = std::max(1, blocks_per_sm) * d.sm_count;

  ReadBandwidth out;
  out.bytes = buffer.bytes();
  out.timing = time_on_stream(stream, 3, reps, [] {}, [&] {
    stream_read<<<grid, kProbeThreads, 0, stream>>>(buffer.get(), buffer.size(), sink.get());
  });
  out.gbps = out.bytes / (out.timing.median_ms * 1e-3) / 1e9;
  return out;
}

}  // namespace warpfold::harness
