#include "cli/profile_lessons.hpp"

#include "lab/divergence/divergence_registry.hpp"
#include "lab/nested/nested_run.hpp"
#include "lab/profile_pass.hpp"

#include <optional>
#include <stdexcept>

namespace warpfold::cli {
namespace {

using nlohmann::json;
using Row = std::vector<json>;

size_t column_index(const report::Table& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].key == key) return i;
  }
  throw std::logic_error("table '" + t.title + "' has no column '" + key + "'");
}

std::string text(const json& cell) { return cell.is_string() ? cell.get<std::string>() : cell.is_null() ? "" : cell.dump(); }

// The lesson's main table: the first of its report.
const report::Table& main_table(const report::Report& r) {
  if (r.tables.empty()) throw std::logic_error("the timed run produced no table");
  return r.tables.front();
}

std::string variants_arg(lab::VariantSelection v) {
  return v == lab::VariantSelection::book ? "book" : v == lab::VariantSelection::fixed ? "fixed" : "all";
}

// "--seed S" when the options hold one (the profile command always sets it).
void append_seed(std::vector<std::string>& args, const std::optional<uint64_t>& seed) {
  if (seed) args.insert(args.end(), {"--seed", std::to_string(*seed)});
}

// The rows of a lesson whose label is one column of its table.
profile::TimedRows rows_labelled_by(const report::Report& r, const std::string& label_column) {
  const report::Table& t = main_table(r);
  const size_t label = column_index(t, label_column);
  return timed_rows_of(t, [=](const std::vector<json>& row) { return text(row[label]); }, "median_ms", "check");
}

std::string shapes_arg(const std::vector<lab::BlockShape>& shapes) {
  std::string list;
  for (const lab::BlockShape& b : shapes) list += (list.empty() ? "" : ",") + b.label();
  return list;
}

}  // namespace

profile::TimedRows timed_rows_of(const report::Table& table, const std::function<std::string(const Row&)>& label,
                                 const std::string& median_column, const std::string& check_column) {
  const size_t median = column_index(table, median_column), check = column_index(table, check_column);
  profile::TimedRows rows;
  for (const Row& row : table.rows) {
    profile::TimedRow t;
    if (row[median].is_number()) t.median_ms = row[median].get<double>();
    t.check = text(row[check]);
    rows[label(row)] = t;
  }
  return rows;
}

LessonProfile ladder_profile(const lab::LadderOptions& o) {
  lab::validate_ladder_options(o);
  if (o.block_sweep) throw std::invalid_argument("the profile runs one block size: drop --block-sweep");
  LessonProfile p;
  p.lesson = "ladder";
  p.lesson_args = {"ladder", "--n", std::to_string(o.n), "--block", std::to_string(o.block), "--variants",
                   variants_arg(o.variants)};
  append_seed(p.lesson_args, o.seed);
  p.timed_run = [o] { return lab::run_ladder(o); };
  p.timed_rows = [](const report::Report& r) {
    const report::Table& t = main_table(r);
    const size_t kernel = column_index(t, "kernel"), variant = column_index(t, "variant");
    return timed_rows_of(
        t, [=](const Row& row) { return lab::variant_label(text(row[kernel]), text(row[variant])); }, "median_ms",
        "check");
  };
  return p;
}

LessonProfile divergence_profile(const lab::DivergenceOptions& o) {
  lab::validate_divergence_options(o);
  LessonProfile p;
  p.lesson = "divergence";
  p.lesson_args = {"divergence", "--n", std::to_string(o.n), "--block", std::to_string(o.block)};
  p.timed_run = [o] { return lab::run_divergence(o); };
  p.timed_rows = [](const report::Report& r) {
    const report::Table& t = main_table(r);
    const size_t kernel = column_index(t, "kernel");
    auto label = [&](lab::divergence::Build b) {
      return [=](const Row& row) { return lab::variant_label(text(row[kernel]), lab::divergence::to_string(b)); };
    };
    profile::TimedRows rows = timed_rows_of(t, label(lab::divergence::Build::optimised), "o3_median_ms", "o3_check");
    rows.merge(timed_rows_of(t, label(lab::divergence::Build::device_debug), "g_median_ms", "g_check"));
    return rows;
  };
  return p;
}

LessonProfile grid_profile(const lab::GridOptions& o) {
  lab::validate_grid_options(o);
  LessonProfile p;
  p.lesson = "grid";
  p.lesson_args = {"grid", "--nx", std::to_string(o.nx), "--ny", std::to_string(o.ny), "--blocks",
                   shapes_arg(o.shapes)};
  append_seed(p.lesson_args, o.seed);
  p.timed_run = [o] { return lab::run_grid(o); };
  p.timed_rows = [](const report::Report& r) { return rows_labelled_by(r, "block"); };
  return p;
}

LessonProfile nested_profile(const lab::NestedOptions& o) {
  lab::validate_nested_options(o);
  LessonProfile p;
  p.lesson = "nested";
  p.lesson_args = {"nested", "--n", std::to_string(o.n), "--block", std::to_string(o.block)};
  append_seed(p.lesson_args, o.seed);
  p.timed_run = [o] { return lab::run_nested(o); };
  p.timed_rows = [](const report::Report& r) { return rows_labelled_by(r, "kernel"); };
  return p;
}

}  // namespace warpfold::cli
