#pragma once
// Nsight Compute's CSV (`ncu --csv`), in either of its two layouts:
//   details page (the default): one record per kernel and metric,
//     "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Name","Metric Unit","Metric Value"
//     (2023 and later versions append rule columns; only the named columns are read);
//   raw page (--page raw): one record per kernel, one column per metric, and a second header
//     record of units whose ID field is empty.
// Columns are found by their header, never by position.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

struct NcuValue {
  std::string unit;  // as printed: "%", "Gbyte/second", "nsecond", "" ...
  std::string text;  // as printed: "1,234.56", "n/a" ...
};

struct NcuKernel {
  long id = 0;       // ncu's result ID: the order in which it profiled the launches
  std::string name;  // "Kernel Name", as printed
  std::string block, grid;  // "(512, 1, 1)", when the CSV has them
  std::map<std::string, NcuValue> metrics;  // by metric name
};

// The kernels of every CSV table in `text`, ordered by ID. Lines that are not CSV records are
// skipped. Empty when there is no table (ncu profiled nothing, or printed an error instead).
std::vector<NcuKernel> parse_ncu_csv(std::string_view text);

}  // namespace warpfold::profile
