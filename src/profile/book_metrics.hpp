#pragma once
// The book's nvprof metrics and the Nsight Compute metrics that measure the same thing on sm_70
// and later (the mapping of DESIGN.md), in the order the profile tables print them.

#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

// How a value is turned into the table's unit.
enum class MetricKind {
  percent,     // printed as ncu prints it, in %
  ratio,       // a plain number (instructions per warp, stall cycles per issue)
  throughput,  // converted to GB/s
  duration,    // converted to ms
};

struct BookMetric {
  std::string_view book;    // nvprof's name, as the seeds use it
  std::string_view ncu;     // ncu's metric
  std::string_view key;     // the table's column key
  std::string_view header;  // the table's column header
  MetricKind kind;
  int precision;            // digits after the point in the terminal and Markdown tables
};

const std::vector<BookMetric>& book_metrics();

// The metric of nvprof name `book` ("achieved_occupancy"); throws std::logic_error for another.
const BookMetric& book_metric(std::string_view book);

}  // namespace warpfold::profile
