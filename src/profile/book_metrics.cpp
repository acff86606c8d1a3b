#include "profile/book_metrics.hpp"

#include <stdexcept>

namespace warpfold::profile {

const std::vector<BookMetric>& book_metrics() {
  // The seeds' tables: 001 closes with time, gld_efficiency and gst_efficiency and measures
  // dram_read_throughput and stall_sync; 000 measures inst_per_warp and gld_throughput; 004
  // achieved_occupancy and branch_efficiency. elapsed is ncu's own duration of the replayed
  // kernel, kept to compare with the CUDA-event time.
  static const std::vector<BookMetric> metrics{
      {"elapsed", "gpu__time_duration.sum", "ncu_ms", "ncu ms", MetricKind::duration, 4},
      {"gld_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "gld_efficiency_pct",
       "load eff %", MetricKind::percent, 2},
      {"gst_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "gst_efficiency_pct",
       "store eff %", MetricKind::percent, 2},
      {"branch_efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", "branch_efficiency_pct",
       "branch eff %", MetricKind::percent, 2},
      {"inst_per_warp", "smsp__average_inst_executed_per_warp.ratio", "inst_per_warp", "inst/warp",
       MetricKind::ratio, 1},
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct",
       "occupancy %", MetricKind::percent, 1},
      {"dram_read_throughput", "dram__bytes_read.sum.per_second", "dram_read_gbps", "DRAM read GB/s",
       MetricKind::throughput, 1},
      {"gld_throughput", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "gld_throughput_gbps",
       "load GB/s", MetricKind::throughput, 1},
      {"stall_sync", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "stall_sync",
       "barrier stall/issue", MetricKind::ratio, 3},
  };
  return metrics;
}

const BookMetric& book_metric(std::string_view book) {
  for (const BookMetric& m : book_metrics()) {
    if (m.book == book) return m;
  }
  throw std::logic_error("no book metric " + std::string(book));
}

}  // namespace warpfold::profile
