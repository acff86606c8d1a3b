#include "lab/book/book_claims.hpp"

namespace warpfold::lab::book {
namespace {

using nlohmann::json;

// The occupancy each side reports: this GPU's grid table (theoretical), the book's nvprof (achieved).
constexpr const char* kHereOccupancy = "occupancy_pct";
constexpr const char* kBookOccupancy = "achieved_occupancy_pct";

std::optional<double> number(const json& object, const std::string& field) {
  if (!object.contains(field) || !object[field].is_number()) return std::nullopt;
  return object[field].get<double>();
}

// The time of the row keyed `key`, or nullopt.
std::optional<double> time_of(const SectionRows& s, const std::string& key) {
  static const json null_cell;
  for (const json& row : s.rows) {
    const auto k = row_key(s.rule, [&](const std::string& c) -> const json& { return row.contains(c) ? row[c] : null_cell; });
    if (k && *k == key) return number(row, s.time_column);
  }
  return std::nullopt;
}

// The time at the highest occupancy over the time at the lowest, among rows with both; nullopt
// where fewer than two occupancies differ.
std::optional<double> occupancy_ratio(const std::vector<json>& rows, const std::string& occupancy, const std::string& time) {
  const json* high = nullptr;
  const json* low = nullptr;
  for (const json& row : rows) {
    const auto occ = number(row, occupancy);
    if (!occ || !number(row, time)) continue;
    if (!high || *occ > *number(*high, occupancy)) high = &row;
    if (!low || *occ < *number(*low, occupancy)) low = &row;
  }
  if (!high || *number(*high, occupancy) == *number(*low, occupancy)) return std::nullopt;
  return *number(*low, time) / *number(*high, time);
}

// The section's rows where it ran on a GPU; nullopt where it is missing, CPU-only or failed.
std::optional<SectionRows> section_rows(const json& results, const std::string& section) {
  const auto spec = lesson_book_columns(section);
  if (!spec || !results.contains("lessons")) return std::nullopt;
  for (const json& lesson : results["lessons"]) {
    if (lesson.value("key", "") != section) continue;
    const std::string status = lesson.value("status", "");
    if ((status != "ok" && status != "wrong") || !lesson.contains("report") || !lesson["report"].is_object()) {
      return std::nullopt;
    }
    const json& tables = lesson["report"].value("tables", json::array());
    if (tables.empty()) return std::nullopt;
    return SectionRows{tables[0].value("rows", json::array()).get<std::vector<json>>(), spec->rule, spec->time_column};
  }
  return std::nullopt;
}

json ratio_cell(std::optional<double> r) { return r ? json(*r) : json(nullptr); }

}  // namespace

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::reversed: return "reversed";
    case Verdict::no_clear_difference: return "no clear difference";
    case Verdict::not_measurable: return "not measurable here";
  }
  return "";
}

Verdict verdict_of(std::optional<double> ratio, double tolerance) {
  if (!ratio || !(*ratio > 0)) return Verdict::not_measurable;
  switch (order(1.0, *ratio, tolerance)) {
    case Order::faster: return Verdict::holds;  // the winner's time (1) below the loser's (ratio)
    case Order::slower: return Verdict::reversed;
    case Order::tie: return Verdict::no_clear_difference;
  }
  return Verdict::not_measurable;
}

const std::vector<Claim>& chapter_claims() {
  static const std::vector<Claim> claims{
      {"reduceNeighboredLess beats reduceNeighbored", "ladder", "reduceNeighboredLess", "reduceNeighbored", false,
       "docs/ladder.md"},
      {"Interleaved beats Neighbored", "ladder", "reduceInterleaved", "reduceNeighbored", false, "docs/ladder.md"},
      {"Interleaved beats NeighboredLess", "ladder", "reduceInterleaved", "reduceNeighboredLess", false,
       "docs/ladder.md"},
      {"unrolling 8 beats 4", "ladder", "reduceUnrolling8", "reduceUnrolling4", false, "docs/ladder.md"},
      {"warp unrolling helps", "ladder", "reduceUnrollWarps8", "reduceUnrolling8", false, "docs/ladder.md"},
      {"complete unrolling helps", "ladder", "reduceCompleteUnrollWarps8", "reduceUnrollWarps8", false,
       "docs/ladder.md"},
      {"a template block size helps", "ladder", "reduceCompleteUnroll", "reduceCompleteUnrollWarps8", false,
       "docs/ladder.md"},
      {"divergent warps are slower (mathKernel2 beats mathKernel1)", "divergence", "mathKernel2", "mathKernel1", false,
       "docs/execution-model.md#predication-why--o3-shows-no-divergence"},
      {"more occupancy is faster", "grid", "", "", true, "docs/execution-model.md#3-grid-and-block-shapes-warpfold-grid"},
      {"nested launches are slow (neighbored beats nested)", "nested", "neighbored", "nested", false,
       "docs/nested.md#what-each-launch-costs"},
      {"fewer child launches are faster (nested2 beats nested)", "nested", "nested2", "nested", false,
       "docs/nested.md#what-each-launch-costs"},
  };
  return claims;
}

namespace {

// The rows of `s` whose key the book measured in the claim's lesson.
std::vector<json> rows_the_book_has(const Claim& claim, const SectionRows& s, const Numbers& book) {
  static const json null_cell;
  std::vector<json> kept;
  for (const json& row : s.rows) {
    const auto k = row_key(s.rule, [&](const std::string& c) -> const json& { return row.contains(c) ? row[c] : null_cell; });
    if (k && find_entry(book, claim.section, *k)) kept.push_back(row);
  }
  return kept;
}

}  // namespace

std::optional<double> here_ratio(const Claim& claim, const SectionRows& s, const Numbers* book) {
  if (claim.by_occupancy) {
    return occupancy_ratio(book ? rows_the_book_has(claim, s, *book) : s.rows, kHereOccupancy, s.time_column);
  }
  const auto winner = time_of(s, claim.winner), loser = time_of(s, claim.loser);
  if (!winner || !loser || !(*winner > 0)) return std::nullopt;
  return *loser / *winner;
}

std::optional<BookRatio> book_ratio(const Claim& claim, const Numbers& numbers) {
  for (const Run& run : numbers.runs) {
    if (run.lesson != claim.section) continue;
    if (claim.by_occupancy) {
      if (auto r = occupancy_ratio(run.rows, kBookOccupancy, "ms")) return BookRatio{*r, &run};
      continue;
    }
    const auto winner = find_in_run(numbers, run.id, claim.winner), loser = find_in_run(numbers, run.id, claim.loser);
    if (winner && loser && winner->ms() && loser->ms() && *winner->ms() > 0) {
      return BookRatio{*loser->ms() / *winner->ms(), &run};
    }
  }
  return std::nullopt;
}

report::Table claims_table(const json& results, const Numbers& numbers) {
  report::Table t;
  t.title = "the chapter's claims on this GPU";
  t.columns = {{"claim", "claim"},          {"section", "section"},
               {"book_ratio", "book", 2},   {"book_source", "book's GPU"},
               {"here_ratio", "this GPU", 2}, {"verdict", "verdict"},
               {"doc", "explained in"}};
  for (const Claim& c : chapter_claims()) {
    const auto rows = section_rows(results, c.section);
    const auto here = rows ? here_ratio(c, *rows, &numbers) : std::nullopt;
    const auto book = book_ratio(c, numbers);
    t.add_row({c.text, c.section, book ? json(book->ratio) : json(nullptr), book ? json(book->run->label()) : json(nullptr),
               ratio_cell(here), to_string(verdict_of(here)), c.doc});
  }
  t.notes.push_back("book and this GPU: the slower row's time / the faster's, as the claim names them (above 1: the "
                    "claim holds); within 3% of 1: no clear difference");
  t.notes.push_back("more occupancy is faster: the time at the lowest occupancy / the time at the highest; the book's "
                    "occupancy is nvprof's achieved_occupancy, this GPU's the grid table's theoretical occupancy, "
                    "so a run where every shape has the same occupancy cannot measure it");
  t.notes.push_back("not measurable here: the section did not run on a GPU, failed, or lacks a row the claim needs");
  return t;
}

}  // namespace warpfold::lab::book
