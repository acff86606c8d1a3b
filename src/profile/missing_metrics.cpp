#include "profile/missing_metrics.hpp"

#include "profile/metric_units.hpp"

#include <algorithm>

namespace warpfold::profile {

std::optional<double> metric_number(const NcuKernel& kernel, std::string_view metric) {
  const auto it = kernel.metrics.find(std::string(metric));
  if (it == kernel.metrics.end()) return std::nullopt;
  return parse_metric_number(it->second.text);
}

void MissingMetrics::add(const NcuKernel& kernel, std::string_view metric, const std::string& row) {
  const auto it = kernel.metrics.find(std::string(metric));
  std::optional<std::string> printed;
  if (it != kernel.metrics.end()) printed = it->second.text;
  auto same = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.metric == metric && e.printed == printed; });
  if (same == entries_.end()) same = entries_.insert(entries_.end(), Entry{std::string(metric), printed, {}});
  if (same->rows.empty() || same->rows.back() != row) same->rows.push_back(row);  // a metric read twice for a row
}

std::optional<double> MissingMetrics::read(const NcuKernel& kernel, std::string_view metric, const std::string& row) {
  const std::optional<double> number = metric_number(kernel, metric);
  if (!number) add(kernel, metric, row);
  return number;
}

std::vector<std::string> MissingMetrics::notes() const {
  std::vector<std::string> notes;
  for (const Entry& e : entries_) {
    std::string rows;
    for (const std::string& r : e.rows) rows += (rows.empty() ? "" : ", ") + r;
    const std::string count = e.rows.size() == 1 ? "" : " in " + std::to_string(e.rows.size()) + " rows";
    notes.push_back(e.printed ? "ncu printed \"" + *e.printed + "\" for " + e.metric + count + ": " + rows
                              : "ncu did not report " + e.metric + count + ": " + rows);
  }
  return notes;
}

}  // namespace warpfold::profile
