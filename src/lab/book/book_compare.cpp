#include "lab/book/book_compare.hpp"

#include <set>
#include <stdexcept>

namespace warpfold::lab::book {
namespace {

using nlohmann::json;

size_t column_index(const report::Table& t, const std::string& key) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == key) return c;
  }
  throw std::logic_error("table '" + t.title + "' has no column '" + key + "'");
}

std::optional<double> number_at(const std::vector<json>& row, size_t column) {
  return row[column].is_number() ? std::optional<double>(row[column].get<double>()) : std::nullopt;
}

// The book's time the row's speedup divides: the reference row of the same run, else its first timed row.
std::optional<double> book_reference_ms(const Numbers& numbers, const Run& run, const std::string& reference_key) {
  if (auto e = find_in_run(numbers, run.id, reference_key); e && e->ms()) return e->ms();
  for (const json& row : run.rows) {
    if (row.contains("ms") && row["ms"].is_number()) return row["ms"].get<double>();
  }
  return std::nullopt;
}

std::string agreement_text(const RowOrder& o, const std::string& against_key, const std::string& doc) {
  if (!o.against) return "";
  switch (o.agreement) {
    case Agreement::same: return "same order as the book";
    case Agreement::tie: return "tie against " + against_key;
    case Agreement::reversed: return "REVERSED against " + against_key + ": " + doc;
  }
  return "";
}

}  // namespace

Order order(double time, double reference, double tolerance) {
  if (time * (1 + tolerance) < reference) return Order::faster;
  if (reference * (1 + tolerance) < time) return Order::slower;
  return Order::tie;
}

std::vector<RowOrder> ranking_orders(const std::vector<std::optional<double>>& here,
                                     const std::vector<std::optional<double>>& book,
                                     const std::vector<std::string>& run) {
  std::vector<RowOrder> out(here.size());
  for (size_t i = 0; i < here.size(); ++i) {
    if (!here[i] || !book[i]) continue;
    for (size_t j = i; j-- > 0;) {
      if (!here[j] || !book[j] || run[j] != run[i]) continue;
      const Order b = order(*book[i], *book[j]), h = order(*here[i], *here[j]);
      out[i].against = j;
      out[i].agreement = b == Order::tie || h == Order::tie ? Agreement::tie
                         : b == h                            ? Agreement::same
                                                             : Agreement::reversed;
      break;
    }
  }
  return out;
}

void add_book_columns(report::Table& table, const Numbers& numbers, const BookColumns& spec) {
  const size_t time_col = column_index(table, spec.time_column);
  const size_t n = table.rows.size();
  std::vector<std::optional<std::string>> keys(n);
  std::vector<std::optional<Entry>> entries(n);
  std::vector<std::optional<double>> here(n), book(n);
  std::vector<std::string> run(n);
  std::optional<double> here_reference;
  for (size_t i = 0; i < n; ++i) {
    const auto& row = table.rows[i];
    keys[i] = row_key(spec.rule, [&](const std::string& c) -> const json& { return row[column_index(table, c)]; });
    here[i] = number_at(row, time_col);
    if (keys[i] && *keys[i] == spec.reference_key && here[i] && !here_reference) here_reference = here[i];
    if (!keys[i]) continue;
    entries[i] = find_entry(numbers, spec.lesson, *keys[i]);
    if (!entries[i]) continue;
    book[i] = entries[i]->ms();
    run[i] = entries[i]->run->id;
  }
  const std::vector<RowOrder> orders = ranking_orders(here, book, run);

  if (spec.add_speedup) table.columns.push_back({"speedup", "speedup", 2});
  table.columns.push_back({"book_ms", "book ms", 3});
  table.columns.push_back({"book_speedup", "book speedup", 2});
  for (const auto& [field, column] : spec.extra_figures) table.columns.push_back(column);
  table.columns.push_back({"book_gpu", "book GPU"});
  table.columns.push_back({"vs_book", "vs book"});
  std::set<const Run*> runs_used;
  for (size_t i = 0; i < n; ++i) {
    auto& row = table.rows[i];
    if (spec.add_speedup) row.push_back(here[i] && here_reference ? json(*here_reference / *here[i]) : json(nullptr));
    const Entry* e = entries[i] ? &*entries[i] : nullptr;
    if (!e) {
      row.resize(table.columns.size());  // null: the book has no figure for this row
      continue;
    }
    runs_used.insert(e->run);
    const auto reference = book_reference_ms(numbers, *e->run, spec.reference_key);
    row.push_back(book[i] ? json(*book[i]) : json(nullptr));
    row.push_back(book[i] && reference ? json(*reference / *book[i]) : json(nullptr));
    for (const auto& [field, column] : spec.extra_figures) row.push_back(e->row->value(field, json(nullptr)));
    row.push_back(e->run->label());
    const RowOrder& o = orders[i];
    row.push_back(e->row->contains("invalid") ? json("book: " + e->row->value("invalid", std::string()))
                                              : json(agreement_text(o, o.against ? keys[*o.against].value_or("") : "", spec.doc)));
  }
  if (spec.add_speedup) table.notes.push_back("speedup: " + spec.reference_key + "'s median time / the row's");
  for (const Run& r : numbers.runs) {
    if (runs_used.count(&r)) table.notes.push_back("book: " + r.label() + " (" + r.where + "; " + r.config + ")");
  }
  table.notes.push_back("book speedup: the book run's time of " + spec.reference_key +
                        " (else its first timed row) / the row's; only ratios compare across GPUs");
  table.notes.push_back("vs book: the row's order against the previous row of the same book run, on this GPU and "
                        "in the book (within 3%: a tie); REVERSED: this GPU orders the pair the other way round, "
                        "and " + spec.doc + " explains why");
}

std::optional<BookColumns> lesson_book_columns(const std::string& lesson) {
  if (lesson == "ladder") {
    return BookColumns{"ladder", {"kernel", "variant", "book"}, "median_ms", "reduceNeighbored", "docs/ladder.md",
                       /*add_speedup=*/false, {}};
  }
  if (lesson == "divergence") {
    return BookColumns{"divergence", {"kernel", "", ""}, "o3_median_ms", "warmingup",
                       "docs/execution-model.md#predication-why--o3-shows-no-divergence", true, {}};
  }
  if (lesson == "grid") {
    return BookColumns{"grid", {"block", "", ""}, "median_ms", "32x32",
                       "docs/execution-model.md#3-grid-and-block-shapes-warpfold-grid", true,
                       {{"achieved_occupancy_pct", {"book_achieved_occupancy_pct", "book achieved occupancy %", 1}}}};
  }
  if (lesson == "nested") {
    return BookColumns{"nested", {"kernel", "", ""}, "median_ms", "cpu", "docs/nested.md#what-each-launch-costs", true, {}};
  }
  return std::nullopt;
}

void add_lesson_book_columns(report::Table& table, const std::string& lesson) {
  const auto spec = lesson_book_columns(lesson);
  if (!spec) throw std::logic_error("the book's numbers have no columns for lesson '" + lesson + "'");
  add_book_columns(table, numbers(), *spec);
}

}  // namespace warpfold::lab::book
