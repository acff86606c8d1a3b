#pragma once
// The metrics a profile table asked for and ncu gave no number for: printed as "n/a" (a ratio
// with nothing to count, or a counter this GPU lacks) or not reported at all. Their cells are
// empty ("-"); the table's notes name each such metric once, with the rows it is missing from,
// so that an empty cell is never silent.

#include "profile/ncu_csv.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

// The number ncu printed for `metric`, as printed (no unit conversion); nullopt for "n/a",
// anything else that is not a number, or a metric the kernel's results lack.
std::optional<double> metric_number(const NcuKernel& kernel, std::string_view metric);

class MissingMetrics {
 public:
  // Records that row `row` has no number for `metric` in `kernel`'s results (once, however often
  // the row reads it).
  void add(const NcuKernel& kernel, std::string_view metric, const std::string& row);

  // metric_number, recording the row where there is none.
  std::optional<double> read(const NcuKernel& kernel, std::string_view metric, const std::string& row);

  // One note per metric and what ncu printed for it, in the order first met:
  // `ncu printed "n/a" for M in 2 rows: a, b`, `ncu did not report M for: a`.
  std::vector<std::string> notes() const;

 private:
  struct Entry {
    std::string metric;
    std::optional<std::string> printed;  // nullopt: not reported
    std::vector<std::string> rows;
  };
  std::vector<Entry> entries_;
};

}  // namespace warpfold::profile
