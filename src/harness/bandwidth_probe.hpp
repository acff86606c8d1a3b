#pragma once
// The device's achievable read bandwidth, measured now: "% of peak" columns divide by this figure,
// taken in the same run as the numbers they qualify.

#include "harness/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpfold::harness {

struct ReadBandwidth {
  double gbps = 0;     // bytes / median time, 1e9 B/s
  size_t bytes = 0;    // size of the buffer streamed
  TimingStats timing;
};

// Streams a buffer several times larger than L2 (bounded by free memory) with 16-byte loads.
ReadBandwidth measure_read_bandwidth(cudaStream_t stream, int reps = 20);

}  // namespace warpfold::harness
