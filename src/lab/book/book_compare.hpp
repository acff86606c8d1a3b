#pragma once
// This GPU beside the book: the book's time and speedup for each row of a lesson's table, this
// GPU's speedup, and a flag where this GPU orders two rows the other way round from the book.
// Only ratios compare across a decade of GPUs, so every comparison is a ratio within one run.

#include "lab/book/book_numbers.hpp"
#include "report/table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpfold::lab::book {

// Two times within 3% of each other are a tie: neither run orders them.
constexpr double kTieTolerance = 0.03;

enum class Order { faster, slower, tie };

// How `time` compares with `reference` (faster: smaller by more than the tolerance).
Order order(double time, double reference, double tolerance = kTieTolerance);

// How this GPU orders a pair of rows against the book: the same way, one of them calls it a tie,
// or the other way round.
enum class Agreement { same, tie, reversed };

// One row's comparison with the row before it that has both figures from the same book run.
struct RowOrder {
  std::optional<size_t> against;  // that earlier row; nullopt: nothing to compare with
  Agreement agreement = Agreement::same;
};

// For each row: `here` and `book` are its times (nullopt where missing), `run` the book run its
// figure comes from. A pair is reversed only where neither side is a tie.
std::vector<RowOrder> ranking_orders(const std::vector<std::optional<double>>& here,
                                     const std::vector<std::optional<double>>& book,
                                     const std::vector<std::string>& run);

// Which rows of a lesson's table the book measured, and how the table names them.
struct RowKeyRule {
  std::string key_column;      // the column holding the book's key (kernel name, block shape)
  std::string variant_column;  // where not empty, only rows whose variant_column is variant_value
  std::string variant_value;
};

// The row's key in the book's numbers, or nullopt (another variant, a CPU row of another name).
// `cell(column)` returns the row's cell in that column (null where there is none).
template <class CellOf>
std::optional<std::string> row_key(const RowKeyRule& rule, const CellOf& cell) {
  if (!rule.variant_column.empty() && cell(rule.variant_column) != rule.variant_value) return std::nullopt;
  const nlohmann::json& key = cell(rule.key_column);
  if (!key.is_string()) return std::nullopt;
  return key.get<std::string>();
}

struct BookColumns {
  std::string lesson;         // the lesson's runs in book_numbers.json
  RowKeyRule rule;
  std::string time_column;    // this table's median time, in ms
  std::string reference_key;  // the row speedups are relative to (the table's first measured row)
  std::string doc;            // where a reversal is explained ("docs/ladder.md")
  bool add_speedup = true;    // false where the table has its own speedup column already
  // More of the book's figures, each shown as its own column: {field in the data file, column}.
  std::vector<std::pair<std::string, report::Column>> extra_figures;
};

// The book columns of a lesson's first table ("ladder", "divergence", "grid", "nested"): one
// declaration each, shared by the lesson's run and the report's claims; nullopt for other lessons.
std::optional<BookColumns> lesson_book_columns(const std::string& lesson);

// add_book_columns with the embedded numbers and the lesson's declaration above.
void add_lesson_book_columns(report::Table& table, const std::string& lesson);

// Appends to `table`: speedup (this GPU; unless the table has one), book_ms, book_speedup,
// book_gpu and vs_book, and notes naming the book's runs. The book's speedup is relative to the
// reference row of the same run, or, where the run lacks it, the run's first timed row.
void add_book_columns(report::Table& table, const Numbers& numbers, const BookColumns& spec);

}  // namespace warpfold::lab::book
