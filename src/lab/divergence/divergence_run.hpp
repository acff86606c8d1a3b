#pragma once
// `warpfold divergence`: the seed's divergence kernels, each checked against the CPU and timed, in
// the optimised build and the device-debug (-G) build side by side.

#include "harness/run_outcome.hpp"

#include <cstdint>

namespace warpfold::lab {

struct DivergenceOptions {
  uint64_t n = 1024 * 10000;  // the seed's size
  unsigned block = 64;        // the seed's block
  // The kernels run for tens of microseconds, where launch-to-launch jitter is a large share of
  // the time: more repetitions than the ladder's 20 steady the median.
  int reps = 50;
  int warmup = 2;
};

// Keeps grid × block within the kernels' int thread index and the buffer within 4 GiB.
inline constexpr uint64_t kDivergenceMaxN = uint64_t(1) << 30;

// Throws std::invalid_argument naming the problem (n = 0 or too large, a block size that is not a
// power of two from 32 to 1024, reps < 1).
void validate_divergence_options(const DivergenceOptions& options);

harness::RunOutcome run_divergence(const DivergenceOptions& options);

}  // namespace warpfold::lab
