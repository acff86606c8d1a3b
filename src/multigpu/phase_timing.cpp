#include "multigpu/phase_timing.hpp"

#include "harness/gpu_timer.hpp"

#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/error.hpp>

#include <memory>
#include <stdexcept>

namespace warpfold::multigpu {
namespace {

// Events of one GPU, made on that GPU (an event records only on streams of its own device).
struct RankEvents {
  harness::EventPair local;
  harness::EventPair combine;
};

bool runs_local(Phases p) { return p != Phases::combine; }
bool runs_combine(Phases p) { return p != Phases::local; }

// Enqueues one repetition on every rank: [gate] local [events] then the combine of all ranks in
// one NCCL group (one thread driving several ranks must issue their collectives together), then
// each rank's finish (a group enqueues its NCCL work at ncclGroupEnd, so the finish comes after).
void enqueue_repetition(const std::vector<LocalRank>& ranks, Phases phases, StartGate* gate,
                        const std::vector<std::unique_ptr<RankEvents>>* events) {
  for (size_t i = 0; i < ranks.size(); ++i) {
    const LocalRank& r = ranks[i];
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r.device));
    if (gate) gate->hold(r.stream);
    if (events) WARPFOLD_CUDA_CHECK(cudaEventRecord((*events)[i]->local.start(), r.stream));
    if (runs_local(phases)) r.pipeline->enqueue_local();
    if (events) {
      WARPFOLD_CUDA_CHECK(cudaEventRecord((*events)[i]->local.stop(), r.stream));
      WARPFOLD_CUDA_CHECK(cudaEventRecord((*events)[i]->combine.start(), r.stream));
    }
  }
  if (runs_combine(phases)) {
    WARPFOLD_NCCL_CHECK(ncclGroupStart());
    try {
      for (const LocalRank& r : ranks) r.pipeline->enqueue_combine();
    } catch (...) {
      ncclGroupEnd();  // close the group before the error leaves
      throw;
    }
    WARPFOLD_NCCL_CHECK(ncclGroupEnd());
    for (const LocalRank& r : ranks) {
      WARPFOLD_CUDA_CHECK(cudaSetDevice(r.device));
      r.pipeline->enqueue_finish();
    }
  }
  if (events) {
    for (size_t i = 0; i < ranks.size(); ++i) {
      WARPFOLD_CUDA_CHECK(cudaSetDevice(ranks[i].device));
      WARPFOLD_CUDA_CHECK(cudaEventRecord((*events)[i]->combine.stop(), ranks[i].stream));
    }
  }
}

}  // namespace

void run_once(const std::vector<LocalRank>& ranks, Phases phases) {
  enqueue_repetition(ranks, phases, nullptr, nullptr);
  for (const LocalRank& r : ranks) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r.device));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  }
}

std::vector<PhaseTimes> time_phases(const std::vector<LocalRank>& ranks, Phases phases, int warmup, int reps,
                                    StartGate& gate, const std::function<void()>& before_release) {
  std::vector<std::unique_ptr<RankEvents>> events;
  for (const LocalRank& r : ranks) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r.device));
    events.push_back(std::make_unique<RankEvents>());
  }
  std::vector<std::vector<double>> local(ranks.size()), combine(ranks.size()), total(ranks.size());
  for (int rep = 0; rep < warmup + reps; ++rep) {
    gate.arm();
    enqueue_repetition(ranks, phases, &gate, &events);
    before_release();
    gate.release();
    for (size_t i = 0; i < ranks.size(); ++i) {
      WARPFOLD_CUDA_CHECK(cudaSetDevice(ranks[i].device));
      const double local_ms = events[i]->local.elapsed_ms();    // waits for the local phase
      const double combine_ms = events[i]->combine.elapsed_ms();  // waits for the NCCL phase
      if (rep < warmup) continue;
      local[i].push_back(local_ms);
      combine[i].push_back(combine_ms);
      total[i].push_back(local_ms + combine_ms);
    }
  }
  if (gate.timed_out()) {
    throw std::runtime_error("a GPU waited more than 10 s at the start of a repetition (the host did not release it in "
                             "time): the timings are void");
  }
  std::vector<PhaseTimes> times(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (runs_local(phases)) times[i].local = harness::summarize(local[i]);
    if (runs_combine(phases)) times[i].combine = harness::summarize(combine[i]);
    times[i].total = harness::summarize(total[i]);
  }
  return times;
}

}  // namespace warpfold::multigpu
