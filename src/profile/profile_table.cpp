#include "profile/profile_table.hpp"

#include "profile/kernel_pairing.hpp"
#include "profile/metric_units.hpp"
#include "profile/missing_metrics.hpp"

#include <stdexcept>

namespace warpfold::profile {
namespace {

using nlohmann::json;

json cell(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string mapping_note() {
  std::string note = "metrics (nvprof -> ncu):";
  for (const BookMetric& m : book_metrics()) note += " " + std::string(m.book) + " = " + std::string(m.ncu) + ";";
  note.back() = '.';
  return note;
}

}  // namespace

std::optional<double> metric_value(const NcuKernel& kernel, const BookMetric& metric) {
  const std::optional<double> number = metric_number(kernel, metric.ncu);
  if (!number) return std::nullopt;
  const std::string& unit = kernel.metrics.at(std::string(metric.ncu)).unit;
  std::optional<double> converted = number;
  if (metric.kind == MetricKind::throughput) converted = to_gigabytes_per_second(*number, unit);
  if (metric.kind == MetricKind::duration) converted = to_milliseconds(*number, unit);
  if (!converted) {
    throw std::invalid_argument(std::string(metric.ncu) + " came in unit '" + unit + "', which the profiler cannot convert");
  }
  return converted;
}

std::vector<report::Column> profile_columns() {
  std::vector<report::Column> cols{{kProfileLabelColumn, "kernel"}, {kProfileTimeColumn, "time ms", 4}};
  for (const BookMetric& m : book_metrics()) cols.push_back({std::string(m.key), std::string(m.header), m.precision});
  cols.push_back({"check", "check"});
  return cols;
}

report::Table profile_table(const std::string& title, const std::vector<ProfiledLaunch>& launches,
                            const std::vector<NcuKernel>& kernels, const TimedRows& timed) {
  report::Table t;
  t.title = title;
  t.columns = profile_columns();
  const KernelPairing pairing = pair_launches(launches, kernels);
  std::vector<std::string> problems = pairing.problems;
  MissingMetrics missing;
  for (size_t i = 0; i < launches.size(); ++i) {
    const ProfiledLaunch& launch = launches[i];
    std::vector<json> row{launch.label};
    const auto timed_row = timed.find(launch.label);
    row.push_back(timed_row == timed.end() ? json(nullptr) : cell(timed_row->second.median_ms));
    if (const NcuKernel* kernel = pairing.kernels[i]) {
      for (const BookMetric& m : book_metrics()) {
        try {
          const std::optional<double> value = metric_value(*kernel, m);
          if (!value) missing.add(*kernel, m.ncu, launch.label);
          row.push_back(cell(value));
        } catch (const std::invalid_argument& e) {
          problems.push_back(launch.label + ": " + e.what());
          row.push_back(nullptr);
        }
      }
    } else {
      row.resize(t.columns.size() - 1);
    }
    row.push_back(timed_row == timed.end() ? "" : timed_row->second.check);
    t.add_row(std::move(row));
  }
  t.notes.push_back(mapping_note());
  t.notes.insert(t.notes.end(), problems.begin(), problems.end());
  const std::vector<std::string> unmeasured = missing.notes();
  t.notes.insert(t.notes.end(), unmeasured.begin(), unmeasured.end());
  return t;
}

}  // namespace warpfold::profile
