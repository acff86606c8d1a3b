#pragma once
// Runs and times the two phases on every GPU this process drives, with CUDA events on each GPU's
// stream: the local phase (the shard's reduce) and the NCCL phase (the combine of the partials).
// Every repetition waits at the start gate until all GPUs (all processes) are ready, so they start
// together.

#include "harness/stats.hpp"
#include "multigpu/rank_pipeline.hpp"
#include "multigpu/start_gate.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace warpfold::multigpu {

// A GPU this process drives.
struct LocalRank {
  int rank = 0;
  int device = 0;
  cudaStream_t stream = nullptr;
  RankPipeline* pipeline = nullptr;
};

enum class Phases { local, combine, local_then_combine };

// Per GPU, over the repetitions: each phase, and their sum per repetition. A phase not run reads 0.
struct PhaseTimes {
  harness::TimingStats local;
  harness::TimingStats combine;
  harness::TimingStats total;
};

// One untimed repetition on every rank, without the gate: the first NCCL call sets up NCCL's
// connections, and the run before the timing is the one that is checked.
void run_once(const std::vector<LocalRank>& ranks, Phases phases);

// `warmup` untimed then `reps` timed repetitions. `before_release` runs before each release of the
// gate: nothing in one process, a barrier across processes in the mpi set-up (every process must
// then call time_phases with the same counts). Throws std::runtime_error when a GPU's wait at the
// gate timed out.
std::vector<PhaseTimes> time_phases(const std::vector<LocalRank>& ranks, Phases phases, int warmup, int reps,
                                    StartGate& gate, const std::function<void()>& before_release);

}  // namespace warpfold::multigpu
