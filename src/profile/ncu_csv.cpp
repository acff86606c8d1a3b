#include "profile/ncu_csv.hpp"

#include "profile/csv_records.hpp"

#include <algorithm>
#include <optional>

namespace warpfold::profile {
namespace {

std::optional<size_t> column(const CsvRecord& header, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

bool is_header(const CsvRecord& r) { return column(r, "Kernel Name").has_value() && column(r, "ID").has_value(); }

std::string field(const CsvRecord& r, std::optional<size_t> i) { return i && *i < r.size() ? r[*i] : std::string(); }

long parse_id(const std::string& text, long fallback) {
  try {
    size_t used = 0;
    const long id = std::stol(text, &used);
    if (used == text.size()) return id;
  } catch (const std::exception&) {
  }
  return fallback;
}

// The columns that describe the launch rather than measure it (raw page).
bool is_launch_column(const std::string& name) {
  static const char* const kLaunch[] = {"ID",      "Process ID", "Process Name", "Host Name", "Kernel Name",
                                        "Context", "Stream",     "Block Size",   "Grid Size", "Device",
                                        "CC",      "Kernel Time"};
  return std::find(std::begin(kLaunch), std::end(kLaunch), name) != std::end(kLaunch);
}

class Collector {
 public:
  NcuKernel& kernel(long id, const CsvRecord& r, const CsvRecord& header) {
    auto it = by_id_.find(id);
    if (it == by_id_.end()) {
      NcuKernel k;
      k.id = id;
      k.name = field(r, column(header, "Kernel Name"));
      k.block = field(r, column(header, "Block Size"));
      k.grid = field(r, column(header, "Grid Size"));
      it = by_id_.emplace(id, std::move(k)).first;
    }
    return it->second;
  }
  std::vector<NcuKernel> take() {
    std::vector<NcuKernel> out;
    for (auto& [id, k] : by_id_) out.push_back(std::move(k));
    return out;
  }

 private:
  std::map<long, NcuKernel> by_id_;
};

}  // namespace

std::vector<NcuKernel> parse_ncu_csv(std::string_view text) {
  const std::vector<CsvRecord> records = csv_records(text);
  Collector kernels;
  const CsvRecord* header = nullptr;
  const CsvRecord* units = nullptr;  // raw page only
  // A record whose ID does not parse (not ncu's own output) is numbered after every real one; in
  // the details page, consecutive records of one kernel name keep one number.
  long next_id = 1L << 40;
  std::string unnumbered_name;
  for (const CsvRecord& r : records) {
    if (is_header(r)) {
      header = &r;
      units = nullptr;
      continue;
    }
    if (!header) continue;
    const auto id_col = column(*header, "ID");
    const std::string id_text = field(r, id_col);
    const auto name_col = column(*header, "Metric Name");
    const auto value_col = column(*header, "Metric Value");
    if (name_col && value_col) {  // details page
      if (id_text.empty() && field(r, column(*header, "Kernel Name")).empty()) continue;
      const std::string kernel_name = field(r, column(*header, "Kernel Name"));
      long fallback = next_id;
      if (kernel_name != unnumbered_name || next_id == (1L << 40)) fallback = ++next_id;
      unnumbered_name = kernel_name;
      NcuKernel& k = kernels.kernel(parse_id(id_text, fallback), r, *header);
      const std::string metric = field(r, name_col);
      if (!metric.empty()) k.metrics.emplace(metric, NcuValue{field(r, column(*header, "Metric Unit")), field(r, value_col)});
      continue;
    }
    if (id_text.empty()) {  // raw page: the units record under the names
      units = &r;
      continue;
    }
    NcuKernel& k = kernels.kernel(parse_id(id_text, next_id++), r, *header);
    for (size_t c = 0; c < header->size() && c < r.size(); ++c) {
      const std::string& metric = (*header)[c];
      if (is_launch_column(metric)) continue;
      k.metrics.emplace(metric, NcuValue{units && c < units->size() ? (*units)[c] : std::string(), r[c]});
    }
  }
  return kernels.take();
}

}  // namespace warpfold::profile
