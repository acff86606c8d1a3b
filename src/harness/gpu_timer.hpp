#pragma once
// Times GPU work with CUDA events on one stream: warm-up launches first (module load, clocks
// ramping up), then `reps` timed repetitions. `prepare` runs before every repetition, outside the
// events: in-place kernels use it to restore their input, so every run sees the same data.

#include <warpfold/error.hpp>

#include "harness/run_order.hpp"
#include "harness/stats.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace warpfold::harness {

class EventPair {
 public:
  EventPair() {
    WARPFOLD_CUDA_CHECK(cudaEventCreate(&start_));
    WARPFOLD_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }
  // Waits for the stop event and returns the elapsed milliseconds.
  float elapsed_ms() const {
    WARPFOLD_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    WARPFOLD_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

// One timed repetition: `prepare` outside the events, `run` between them; milliseconds.
template <class Prepare, class Run>
double time_once(cudaStream_t stream, const EventPair& events, Prepare& prepare, Run& run) {
  prepare();
  WARPFOLD_CUDA_CHECK(cudaEventRecord(events.start(), stream));
  run();
  WARPFOLD_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
  return events.elapsed_ms();
}

template <class Prepare, class Run>
TimingStats time_on_stream(cudaStream_t stream, int warmup, int reps, Prepare&& prepare, Run&& run) {
  for (int i = 0; i < warmup; ++i) {
    prepare();
    run();
  }
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  EventPair events;
  std::vector<double> samples;
  samples.reserve(reps);
  for (int i = 0; i < reps; ++i) samples.push_back(time_once(stream, events, prepare, run));
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  return summarize(std::move(samples));
}

// Times several pieces of work in turns of `streak` repetitions each (one run `streak` times, then
// the next, ..., round after round) until each has `reps`, so that all of them see the same
// moments of the machine (clocks, host jitter, a neighbour's load): their ratios are then fairer
// than those of back-to-back series. Each round visits the runs in an order of its own
// (round_order), so that no run always follows the same neighbour. With streak = 1 that is one
// repetition of each per round. With a longer streak every turn begins with one untimed
// repetition, which takes whatever the run before left in L2 (what a caller repeating one reduce
// would not see). `runs` are callables; returns one TimingStats per run, in the order of `runs`,
// and where `samples` is given, each run's samples in the order taken (sample i of every run
// from the same round or turn, for per_round_ratio).
template <class Prepare, class Runs>
std::vector<TimingStats> time_in_turns(cudaStream_t stream, int warmup, int reps, int streak, Prepare&& prepare,
                                       Runs& runs, std::vector<std::vector<double>>* samples_out = nullptr) {
  for (int i = 0; i < warmup; ++i) {
    for (auto& run : runs) {
      prepare();
      run();
    }
  }
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  EventPair events;
  std::vector<std::vector<double>> samples(runs.size());
  size_t round = 0;
  for (int done = 0; done < reps; done += streak, ++round) {
    const int turn = streak < reps - done ? streak : reps - done;
    for (size_t j : round_order(runs.size(), round)) {
      if (streak > 1) {
        prepare();
        runs[j]();
      }
      for (int i = 0; i < turn; ++i) samples[j].push_back(time_once(stream, events, prepare, runs[j]));
    }
  }
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  std::vector<TimingStats> stats;
  for (auto& s : samples) stats.push_back(summarize(s));
  if (samples_out) *samples_out = std::move(samples);
  return stats;
}

}  // namespace warpfold::harness
