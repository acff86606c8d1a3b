#include "profile/warp_state_metrics.hpp"

namespace warpfold::profile {

const SchedulerMetric& warp_cycles_per_issue() {
  static const SchedulerMetric metric{"smsp__average_warp_latency_per_inst_issued.ratio", "cycles_per_issue",
                                      "cycles/issue", 1};
  return metric;
}

const std::vector<SchedulerMetric>& scheduler_metrics() {
  // The scheduler section's three rates (a scheduler issues at most one warp per cycle), then the
  // warp-state section's cycles per issued instruction, which the stall reasons divide up.
  static const std::vector<SchedulerMetric> metrics{
      {"smsp__warps_active.avg.per_cycle_active", "active_per_scheduler", "active/sched", 2},
      {"smsp__warps_eligible.avg.per_cycle_active", "eligible_per_scheduler", "eligible/sched", 2},
      {"smsp__issue_active.avg.per_cycle_active", "issued_per_scheduler", "issued/sched", 2},
      warp_cycles_per_issue(),
  };
  return metrics;
}

const std::vector<std::string_view>& stall_reasons() {
  // The Kernel Profiling Guide's warp stall reasons for sm_70 and later, "selected" included.
  static const std::vector<std::string_view> reasons{
      "barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
      "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
      "not_selected", "short_scoreboard", "sleeping", "tex_throttle", "wait", kSelected,
  };
  return reasons;
}

std::string stall_metric(std::string_view reason) {
  return "smsp__average_warps_issue_stalled_" + std::string(reason) + "_per_issue_active.ratio";
}

std::vector<std::string> warp_state_metric_names() {
  std::vector<std::string> names;
  for (const SchedulerMetric& m : scheduler_metrics()) names.emplace_back(m.ncu);
  for (std::string_view reason : stall_reasons()) names.push_back(stall_metric(reason));
  return names;
}

}  // namespace warpfold::profile
