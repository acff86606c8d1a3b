#pragma once
// Everything one GPU measured and read back, as plain bytes: in the mpi set-up every process sends
// its GPU's summary to rank 0 (MPI_Gather of bytes: the ranks run the same binary on the same
// architecture), which builds the report from all of them.

#include "harness/stats.hpp"
#include "multigpu/scalar.hpp"
#include "multigpu/shard_reference.hpp"

#include <type_traits>

namespace warpfold::multigpu {

struct RankSummary {
  int rank = 0;
  int device = 0;  // ordinal on its host, as this process sees it
  char host[64] = {};
  char name[96] = {};
  char pci_bus[32] = {};
  ShardReference reference;              // the CPU's answer for this GPU's shard
  Scalar partial;                        // after the checked run
  Scalar result;                         // after the checked run
  Scalar result_after_timing;            // after the timed repetitions
  harness::TimingStats local;            // local phase, in the timed local + NCCL repetitions
  harness::TimingStats combine;          // NCCL phase, same repetitions
  harness::TimingStats total;            // local + NCCL, per repetition
  harness::TimingStats combine_alone;    // NCCL phase with no local phase before it
  harness::TimingStats local_alone;      // rank 0 only: the local reduce with the other GPUs idle
};

static_assert(std::is_trivially_copyable_v<RankSummary>, "RankSummary travels as bytes");

}  // namespace warpfold::multigpu
