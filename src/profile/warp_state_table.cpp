#include "profile/warp_state_table.hpp"

#include "profile/kernel_pairing.hpp"
#include "profile/warp_state_metrics.hpp"

#include <algorithm>

namespace warpfold::profile {
namespace {

using nlohmann::json;

json cell(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string scheduler_note() {
  std::string note = "per scheduler (an SM has four, each issuing at most one warp instruction per cycle), averaged "
                     "over the cycles it held a warp:";
  for (const SchedulerMetric& m : scheduler_metrics()) note += " " + std::string(m.header) + " = " + std::string(m.ncu) + ";";
  note.back() = '.';
  return note;
}

std::string stall_note() {
  return "stall 1.." + std::to_string(kTopStalls) + ": the largest of ncu's " + std::to_string(stall_reasons().size() - 1) +
         " stall reasons, each " + stall_metric("<reason>") +
         " (warps waiting for that reason per issued instruction); %: its share of cycles/issue. The reasons and "
         "'selected' (the issuing warp itself, about 1; no stall, so not ranked) add up to cycles/issue.";
}

}  // namespace

std::vector<StallShare> top_stalls(const NcuKernel& kernel, size_t count, MissingMetrics& missing, const std::string& row) {
  const std::optional<double> total = missing.read(kernel, warp_cycles_per_issue().ncu, row);
  std::vector<StallShare> stalls;
  for (std::string_view reason : stall_reasons()) {
    if (reason == kSelected) continue;
    const std::optional<double> v = missing.read(kernel, stall_metric(reason), row);
    if (!v || !(*v > 0)) continue;
    std::optional<double> share;
    if (total && *total > 0) share = 100.0 * *v / *total;
    stalls.push_back({std::string(reason), *v, share});
  }
  std::stable_sort(stalls.begin(), stalls.end(),
                   [](const StallShare& a, const StallShare& b) { return a.warps_per_issue > b.warps_per_issue; });
  if (stalls.size() > count) stalls.resize(count);
  return stalls;
}

std::vector<report::Column> warp_state_columns() {
  std::vector<report::Column> cols{{"kernel", "kernel"}};
  for (const SchedulerMetric& m : scheduler_metrics()) cols.push_back({std::string(m.key), std::string(m.header), m.precision});
  for (size_t i = 1; i <= kTopStalls; ++i) {
    const std::string n = std::to_string(i);
    cols.push_back({"stall" + n, "stall " + n});
    cols.push_back({"stall" + n + "_pct", "stall " + n + " %", 1});
  }
  return cols;
}

report::Table warp_state_table(const std::string& title, const std::vector<ProfiledLaunch>& launches,
                               const std::vector<NcuKernel>& kernels) {
  report::Table t;
  t.title = title;
  t.columns = warp_state_columns();
  const KernelPairing pairing = pair_launches(launches, kernels);
  MissingMetrics missing;
  for (size_t i = 0; i < launches.size(); ++i) {
    const std::string& label = launches[i].label;
    std::vector<json> row{label};
    if (const NcuKernel* kernel = pairing.kernels[i]) {
      for (const SchedulerMetric& m : scheduler_metrics()) row.push_back(cell(missing.read(*kernel, m.ncu, label)));
      for (const StallShare& s : top_stalls(*kernel, kTopStalls, missing, label)) {
        row.push_back(s.reason);
        row.push_back(cell(s.share_pct));
      }
    }
    row.resize(t.columns.size());
    t.add_row(std::move(row));
  }
  t.notes = {scheduler_note(), stall_note()};
  t.notes.insert(t.notes.end(), pairing.problems.begin(), pairing.problems.end());
  const std::vector<std::string> unmeasured = missing.notes();
  t.notes.insert(t.notes.end(), unmeasured.begin(), unmeasured.end());
  return t;
}

}  // namespace warpfold::profile
