#include "harness/bandwidth_probe.hpp"
#include "harness/device_buffer.hpp"
#include "harness/device_info.hpp"
#include "harness/gpu_timer.hpp"

#include <algorithm>

namespace warpfold::harness {
namespace {

constexpr int kProbeThreads = 256;
constexpr int kLoadsInFlight = 8;
constexpr size_t kTileVectors = size_t(kProbeThreads) * kLoadsInFlight;  // 32 KiB of int4

// Block b reads tiles b, b + grid, … of `tiles` whole tiles; thread t loads vectors t, t + 256, …
// of a tile, all eight before using any (read-only path, no cache hint). The XOR result is stored
// only under a condition the compiler cannot prove false, so no load is optimised away.
__global__ void __launch_bounds__(kProbeThreads) stream_read(const int4* __restrict__ data, size_t tiles, int* sink) {
  int acc = 0;
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int4* base = data + tile * kTileVectors + threadIdx.x;
    int4 v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = __ldg(base + k * kProbeThreads);
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0x7f3a9e11) *sink = acc;
}

ReadBandwidth stream_buffer(cudaStream_t stream, size_t bytes, int reps) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  const DeviceSummary d = query_device(device);
  const size_t tiles = std::max<size_t>(1, bytes / (kTileVectors * sizeof(int4)));
  DeviceBuffer<int4> buffer(tiles * kTileVectors);
  DeviceBuffer<int> sink(1);
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0x5b, buffer.bytes(), stream));  // not zeros

  int blocks_per_sm = 0;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, stream_read, kProbeThreads, 0));
  const size_t grid = std::min<size_t>(tiles, size_t(std::max(1, blocks_per_sm)) * size_t(d.sm_count));

  ReadBandwidth out;
  out.bytes = buffer.bytes();
  out.timing = time_on_stream(stream, 3, reps, [] {}, [&] {
    stream_read<<<unsigned(grid), kProbeThreads, 0, stream>>>(buffer.get(), tiles, sink.get());
  });
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  out.gbps = out.bytes / (out.timing.median_ms * 1e-3) / 1e9;
  return out;
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
  return stream_buffer(stream, std::min(wanted, free_bytes / 4), reps);
}

ReadBandwidth measure_l2_read_bandwidth(cudaStream_t stream, int reps) {
  int device = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
  return stream_buffer(stream, query_device(device).l2_bytes / 4, reps);
}

}  // namespace warpfold::harness
