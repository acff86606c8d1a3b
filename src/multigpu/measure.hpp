#pragma once
// The measurement both set-ups run, in the same order on every process:
//  1. one run of local + NCCL on fresh (poisoned) outputs, read back and later checked;
//  2. the one-GPU baseline: rank 0's local reduce alone, the other GPUs idle;
//  3. the timed local + NCCL repetitions;
//  4. the NCCL phase alone, timed;
//  5. the result read back again after all of it.

#include "multigpu/multigpu_options.hpp"
#include "multigpu/phase_timing.hpp"
#include "multigpu/rank_summary.hpp"

#include <functional>
#include <vector>

namespace warpfold::multigpu {

// `references[i]` belongs to `ranks[i]`. `barrier` meets the other processes (nothing in one
// process). Returns one summary per local rank, without host and device names (describe_device).
std::vector<RankSummary> measure_ranks(const std::vector<LocalRank>& ranks, const std::vector<ShardReference>& references,
                                       const MultigpuOptions& options, const std::function<void()>& barrier);

// Fills host, name and PCI bus of `summary` for `device` of this process.
void describe_device(RankSummary& summary, int device);

}  // namespace warpfold::multigpu
