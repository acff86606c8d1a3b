#pragma once
// The book's metric table: one row per profiled launch, its time from the lesson's CUDA-event run
// and its metrics from ncu, paired in launch order (see launch_manifest.hpp).

#include "profile/book_metrics.hpp"
#include "profile/launch_manifest.hpp"
#include "profile/ncu_csv.hpp"
#include "report/table.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::profile {

// What the lesson's timed run said about one row.
struct TimedRow {
  std::optional<double> median_ms;
  std::string check;
};
using TimedRows = std::map<std::string, TimedRow>;  // by row label

// A metric of one kernel in the table's unit, or nullopt when ncu gave none (or printed "n/a").
// Throws std::invalid_argument for a unit it cannot convert (the message names it).
std::optional<double> metric_value(const NcuKernel& kernel, const BookMetric& metric);

// The columns of each row's label (the launch's, from the manifest) and of its CUDA-event time
// (the lesson's median).
constexpr const char* kProfileLabelColumn = "kernel";
constexpr const char* kProfileTimeColumn = "time_ms";

// Columns: kernel, CUDA-event ms, then every book metric (book_metrics() order), then check.
std::vector<report::Column> profile_columns();

// Pairs the launches with ncu's kernels (kernel_pairing.hpp); kernels skipped over, launches left
// without a kernel and metrics ncu gave no number for (missing_metrics.hpp) are named in the notes.
report::Table profile_table(const std::string& title, const std::vector<ProfiledLaunch>& launches,
                            const std::vector<NcuKernel>& kernels, const TimedRows& timed);

}  // namespace warpfold::profile
