#pragma once
// The warp-state table of a profile: for each kernel, how many warps each scheduler held, how
// many of them were ready to issue, how often one issued, and the top reasons the others waited
// (warp_state_metrics.hpp names the counters). Rows are paired with ncu's kernels as the book's
// table pairs them (kernel_pairing.hpp).

#include "profile/launch_manifest.hpp"
#include "profile/missing_metrics.hpp"
#include "profile/ncu_csv.hpp"
#include "report/table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpfold::profile {

// How many stall reasons each row names.
constexpr size_t kTopStalls = 3;

struct StallShare {
  std::string reason;               // ncu's name: "long_scoreboard", "barrier" ...
  double warps_per_issue = 0;       // ncu's value: warps in this state per issued instruction
  std::optional<double> share_pct;  // its share of the cycles between a warp's issues; nullopt where ncu gave none
};

// The `count` largest stall reasons of `kernel` above zero, largest first, "selected" left out.
// A reason or total ncu gave no number for is recorded in `missing` under `row`.
std::vector<StallShare> top_stalls(const NcuKernel& kernel, size_t count, MissingMetrics& missing, const std::string& row);

// Columns: kernel, every scheduler metric, then stall1, stall1_pct ... for kTopStalls reasons.
std::vector<report::Column> warp_state_columns();

report::Table warp_state_table(const std::string& title, const std::vector<ProfiledLaunch>& launches,
                               const std::vector<NcuKernel>& kernels);

}  // namespace warpfold::profile
