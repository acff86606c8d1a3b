#include "profile/profile_table.hpp"

#include "profile/kernel_names.hpp"
#include "profile/metric_units.hpp"

#include <algorithm>
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
  const auto it = kernel.metrics.find(std::string(metric.ncu));
  if (it == kernel.metrics.end()) return std::nullopt;
  const std::optional<double> number = parse_metric_number(it->second.text);
  if (!number) return std::nullopt;
  std::optional<double> converted = number;
  if (metric.kind == MetricKind::throughput) converted = to_gigabytes_per_second(*number, it->second.unit);
  if (metric.kind == MetricKind::duration) converted = to_milliseconds(*number, it->second.unit);
  if (!converted) {
    throw std::invalid_argument(std::string(metric.ncu) + " came in unit '" + it->second.unit +
                                "', which the profiler cannot convert");
  }
  return converted;
}

std::vector<report::Column> profile_columns() {
  std::vector<report::Column> cols{{"kernel", "kernel"}, {"time_ms", "time ms", 4}};
  for (const BookMetric& m : book_metrics()) cols.push_back({std::string(m.key), std::string(m.header), m.precision});
  cols.push_back({"check", "check"});
  return cols;
}

report::Table profile_table(const std::string& title, const std::vector<ProfiledLaunch>& launches,
                            const std::vector<NcuKernel>& kernels, const TimedRows& timed) {
  report::Table t;
  t.title = title;
  t.columns = profile_columns();
  std::vector<std::string> problems;
  // Kernels no launch claims, by name: one note per name however many there are (device-side
  // launches, were ncu to profile them, would be thousands).
  struct Unclaimed {
    std::string name;
    long first_id;
    size_t count;
  };
  std::vector<Unclaimed> unclaimed;
  size_t next = 0;  // the first of ncu's kernels not paired yet
  auto skipped = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      auto same = std::find_if(unclaimed.begin(), unclaimed.end(), [&](const Unclaimed& u) { return u.name == kernels[i].name; });
      if (same == unclaimed.end()) {
        unclaimed.push_back({kernels[i].name, kernels[i].id, 1});
      } else {
        ++same->count;
      }
    }
  };
  for (const ProfiledLaunch& launch : launches) {
    std::vector<json> row{launch.label};
    const auto timed_row = timed.find(launch.label);
    row.push_back(timed_row == timed.end() ? json(nullptr) : cell(timed_row->second.median_ms));
    size_t k = next;
    while (k < kernels.size() && !names_same_kernel(kernels[k].name, launch.kernel)) ++k;
    if (k == kernels.size()) {
      problems.push_back(launch.label + ": " + launch.kernel + " is not in ncu's results");
      row.resize(t.columns.size() - 1);
    } else {
      skipped(next, k);
      next = k + 1;
      for (const BookMetric& m : book_metrics()) {
        try {
          row.push_back(cell(metric_value(kernels[k], m)));
        } catch (const std::invalid_argument& e) {
          problems.push_back(launch.label + ": " + e.what());
          row.push_back(nullptr);
        }
      }
    }
    row.push_back(timed_row == timed.end() ? "" : timed_row->second.check);
    t.add_row(std::move(row));
  }
  skipped(next, kernels.size());
  for (const Unclaimed& u : unclaimed) {
    const std::string where = u.count == 1 ? " (ID " + std::to_string(u.first_id) + ")"
                                           : " " + std::to_string(u.count) + " times (IDs from " + std::to_string(u.first_id) + ")";
    problems.push_back("ncu also profiled " + u.name + where + ", which is no row of this table");
  }
  t.notes.push_back(mapping_note());
  t.notes.insert(t.notes.end(), problems.begin(), problems.end());
  return t;
}

}  // namespace warpfold::profile
