#pragma once
// The warp scheduler's counters in Nsight Compute (sm_70 and later; the metrics of ncu's
// SchedulerStats and WarpStateStats sections), read without PC sampling. An SM has four
// sub-partitions (SMSP), each with its own scheduler; "smsp__" metrics are per scheduler,
// averaged over the schedulers and over the cycles each had a warp resident (active cycles).

#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

struct SchedulerMetric {
  std::string_view ncu;     // ncu's metric
  std::string_view key;     // the table's column key
  std::string_view header;  // the table's column header
  int precision;
};

// Warps active, eligible and issued per scheduler per cycle, and the cycles between two issues
// of a warp, in the order the warp-state table prints them.
const std::vector<SchedulerMetric>& scheduler_metrics();

// The cycles between two instructions a warp issues: the time the stall reasons share out.
const SchedulerMetric& warp_cycles_per_issue();

// ncu's reasons a warp did not issue ("long_scoreboard", "barrier" ...), each measured as the
// average number of warps in that state per issued instruction (stall_metric). Their sum, with
// "selected" (the warp that issues), is warp_cycles_per_issue(); the GPUs of sm_70 to sm_90 have
// every one of them.
const std::vector<std::string_view>& stall_reasons();

// The reason of the issuing warp itself: it is collected, but is no stall.
constexpr std::string_view kSelected = "selected";

// "smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio".
std::string stall_metric(std::string_view reason);

// Every warp-state metric, for `ncu --metrics`.
std::vector<std::string> warp_state_metric_names();

}  // namespace warpfold::profile
