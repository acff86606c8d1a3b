#pragma once
// The CSV records inside a tool's output. ncu writes its CSV to stdout after its own "==PROF=="
// lines and whatever the profiled program printed, so lines that do not open a quoted field are
// skipped; a quoted field may hold commas ("1,234.5"), doubled quotes and line breaks.

#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

using CsvRecord = std::vector<std::string>;

// Every record that starts with a '"' at the start of a line, fields unquoted, in order.
std::vector<CsvRecord> csv_records(std::string_view text);

}  // namespace warpfold::profile
