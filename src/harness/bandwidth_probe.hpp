#pragma once
// The device's achievable read bandwidth, measured now: "% of peak" columns divide by these
// figures, taken in the same run as the numbers they qualify. One probe for DRAM (a buffer far
// larger than the L2) and one for the L2 (a buffer that stays in it).

#include "harness/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpfold::harness {

struct ReadBandwidth {
  double gbps = 0;     // bytes / median time, 1e9 B/s
  size_t bytes = 0;    // size of the buffer streamed
  TimingStats timing;
};

// Streams a buffer of at least 16× the L2 (bounded by free memory) in contiguous 32 KiB tiles per
// block, each thread keeping eight 16-byte loads in flight: the loads of warpfold's wide kernel.
ReadBandwidth measure_read_bandwidth(cudaStream_t stream, int reps = 20);

// The same reads over a buffer of a quarter of the L2, read again and again: the L2's figure, for
// inputs that stay in it.
ReadBandwidth measure_l2_read_bandwidth(cudaStream_t stream, int reps = 50);

}  // namespace warpfold::harness
