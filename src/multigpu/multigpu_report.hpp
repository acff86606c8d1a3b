#pragma once
// The report of `warpfold multigpu`: one row per GPU (its phases, bandwidth and partial), and the
// aggregate row (the slowest GPU's medians, aggregate bandwidth, scaling efficiency against one
// GPU, the combined result against the CPU). Built from the gathered summaries alone, so the CPU
// tests can check it.

#include "multigpu/multigpu_options.hpp"
#include "multigpu/rank_summary.hpp"
#include "report/table.hpp"

#include <string>
#include <vector>

namespace warpfold::multigpu {

struct RunFacts {
  MultigpuOptions options;  // with the seed actually used
  int gpus = 0;
  std::string nccl_version;  // "2.28.9"
  std::string nvls;          // what NCCL_NVLS_ENABLE was found to be (nvlink_multicast.hpp)
  std::string mpi_library;   // mpi set-up only
};

// The numbers of the aggregate row.
struct Aggregate {
  double local_ms = 0, combine_ms = 0, total_ms = 0, combine_alone_ms = 0;  // slowest GPU's medians
  double aggregate_gbps = 0;  // gpus × n × sizeof(T) / total_ms
  double one_gpu_gbps = 0;    // n × sizeof(T) / rank 0's local reduce alone
  double efficiency = 0;      // aggregate / (gpus × one GPU)
  ShardReference reference;   // of all shards together
  std::string check;          // "ok", or every failure found
};

// Throws std::invalid_argument when `ranks` is empty or lacks rank 0's baseline.
Aggregate aggregate(const RunFacts& facts, const std::vector<RankSummary>& ranks);

// Adds the facts, the two tables and their notes to `report`; returns true when a check failed.
bool add_multigpu_results(report::Report& report, const RunFacts& facts, const std::vector<RankSummary>& ranks);

// "2.28.9" from ncclGetVersion's code (22809; 2708 before NCCL 2.9).
std::string nccl_version_string(int code);

}  // namespace warpfold::multigpu
