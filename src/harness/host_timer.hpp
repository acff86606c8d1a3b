#pragma once
// Times CPU work with the steady clock: `reps` repetitions, `prepare` (untimed) before each one,
// so that in-place references see the same input every time.

#include "harness/stats.hpp"

#include <chrono>
#include <vector>

namespace warpfold::harness {

template <class Prepare, class Run>
TimingStats time_on_host(int reps, Prepare&& prepare, Run&& run) {
  std::vector<double> samples;
  samples.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    prepare();
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(std::move(samples));
}

}  // namespace warpfold::harness
