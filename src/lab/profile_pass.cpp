#include "lab/profile_pass.hpp"

#include <stdexcept>

namespace warpfold::lab {

using nlohmann::json;
using Row = std::vector<json>;

std::string variant_label(std::string_view name, std::string_view variant) {
  return std::string(name) + " (" + std::string(variant) + ")";
}

const report::Table& main_table(const report::Report& r) {
  if (r.tables.empty()) throw std::logic_error("the timed run produced no table");
  return r.tables.front();
}

size_t column_index(const report::Table& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].key == key) return i;
  }
  throw std::logic_error("table '" + t.title + "' has no column '" + key + "'");
}

std::string cell_text(const json& cell) {
  return cell.is_string() ? cell.get<std::string>() : cell.is_null() ? "" : cell.dump();
}

profile::TimedRows timed_rows_of(const report::Table& table, const std::function<std::string(const Row&)>& label,
                                 const std::string& median_column, const std::string& check_column) {
  const size_t median = column_index(table, median_column), check = column_index(table, check_column);
  profile::TimedRows rows;
  for (const Row& row : table.rows) {
    profile::TimedRow t;
    if (row[median].is_number()) t.median_ms = row[median].get<double>();
    t.check = cell_text(row[check]);
    rows[label(row)] = t;
  }
  return rows;
}

profile::TimedRows rows_labelled_by(const report::Report& r, const std::string& label_column) {
  const report::Table& t = main_table(r);
  const size_t label = column_index(t, label_column);
  return timed_rows_of(t, [=](const Row& row) { return cell_text(row[label]); }, "median_ms", "check");
}

}  // namespace warpfold::lab
