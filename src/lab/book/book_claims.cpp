#include "lab/book/book_claims.hpp"

#include "profile/book_metrics.hpp"
#include "profile/profile_table.hpp"

namespace warpfold::lab::book {
namespace {

using nlohmann::json;

// The book's occupancy, nvprof's achieved_occupancy, as the book's numbers name it.
constexpr const char* kBookOccupancy = "achieved_occupancy_pct";

std::optional<double> number(const json& object, const std::string& field) {
  if (!object.contains(field) || !object[field].is_number()) return std::nullopt;
  return object[field].get<double>();
}

// A row's key under its section's rule (a missing cell reads as null).
std::optional<std::string> key_of(const SectionRows& s, const json& row) {
  static const json null_cell;
  return row_key(s.rule, [&](const std::string& c) -> const json& { return row.contains(c) ? row[c] : null_cell; });
}

// The time of the row keyed `key`, or nullopt.
std::optional<double> time_of(const SectionRows& s, const std::string& key) {
  for (const json& row : s.rows) {
    const auto k = key_of(s, row);
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

// The rows of the first table of section `key` where it ran on a GPU; nullopt where it is
// missing, CPU-only, skipped or failed.
std::optional<std::vector<json>> first_table_rows(const json& results, const std::string& key) {
  if (key.empty() || !results.contains("lessons")) return std::nullopt;
  for (const json& lesson : results["lessons"]) {
    if (lesson.value("key", "") != key) continue;
    const std::string status = lesson.value("status", "");
    if ((status != "ok" && status != "wrong") || !lesson.contains("report") || !lesson["report"].is_object()) {
      return std::nullopt;
    }
    const json& tables = lesson["report"].value("tables", json::array());
    if (tables.empty()) return std::nullopt;
    return tables[0].value("rows", json::array()).get<std::vector<json>>();
  }
  return std::nullopt;
}

// The section's rows, keyed as its lesson's book columns say.
std::optional<SectionRows> section_rows(const json& results, const std::string& section) {
  const auto spec = lesson_book_columns(section);
  const auto rows = spec ? first_table_rows(results, section) : std::nullopt;
  if (!rows) return std::nullopt;
  return SectionRows{*rows, spec->rule, spec->time_column};
}

// Which occupancy judged the claim by occupancy on this run, for the claims table's notes.
std::string occupancy_note(const Claim& claim, const std::optional<SectionRows>& rows) {
  const std::string note = claim.text + ": the time at the lowest occupancy / the time at the highest; the book's "
                           "occupancy is nvprof's achieved_occupancy; this run's ";
  if (rows && rows->occupancy_column == profile::book_metric("achieved_occupancy").key) {
    return note + "is ncu's achieved occupancy (" + std::string(profile::book_metric("achieved_occupancy").ncu) +
           ") from the " + claim.profiled_section + " section";
  }
  return note + "is the " + claim.section + " table's theoretical occupancy (this run has no " +
         claim.profiled_section + " section with two achieved occupancies), so a run where every shape has the "
         "same theoretical occupancy cannot measure it";
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
      {"more occupancy is faster", "grid", "", "", true, "docs/execution-model.md#3-grid-and-block-shapes-warpfold-grid",
       "grid-profile"},
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
  std::vector<json> kept;
  for (const json& row : s.rows) {
    const auto k = key_of(s, row);
    if (k && find_entry(book, claim.section, *k)) kept.push_back(row);
  }
  return kept;
}

}  // namespace

std::optional<double> here_ratio(const Claim& claim, const SectionRows& s, const Numbers* book) {
  if (claim.by_occupancy) {
    return occupancy_ratio(book ? rows_the_book_has(claim, s, *book) : s.rows, s.occupancy_column, s.time_column);
  }
  const auto winner = time_of(s, claim.winner), loser = time_of(s, claim.loser);
  if (!winner || !loser || !(*winner > 0)) return std::nullopt;
  return *loser / *winner;
}

std::optional<SectionRows> occupancy_rows(const Claim& claim, const json& results, const Numbers* book) {
  // The profile's rows are labelled by its launch label, which for the grid is the block shape.
  if (const auto profiled = first_table_rows(results, claim.profiled_section)) {
    const SectionRows achieved{*profiled, RowKeyRule{profile::kProfileLabelColumn, "", ""}, profile::kProfileTimeColumn,
                               std::string(profile::book_metric("achieved_occupancy").key)};
    if (here_ratio(claim, achieved, book)) return achieved;
  }
  return section_rows(results, claim.section);
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
  std::string occupancy_source;
  for (const Claim& c : chapter_claims()) {
    const auto rows = c.by_occupancy ? occupancy_rows(c, results, &numbers) : section_rows(results, c.section);
    if (c.by_occupancy) occupancy_source = occupancy_note(c, rows);
    const auto here = rows ? here_ratio(c, *rows, &numbers) : std::nullopt;
    const auto book = book_ratio(c, numbers);
    t.add_row({c.text, c.section, book ? json(book->ratio) : json(nullptr), book ? json(book->run->label()) : json(nullptr),
               ratio_cell(here), to_string(verdict_of(here)), c.doc});
  }
  t.notes.push_back("book and this GPU: the slower row's time / the faster's, as the claim names them (above 1: the "
                    "claim holds); within 3% of 1: no clear difference");
  if (!occupancy_source.empty()) t.notes.push_back(occupancy_source);
  t.notes.push_back("not measurable here: the section did not run on a GPU, failed, or lacks a row the claim needs");
  return t;
}

}  // namespace warpfold::lab::book
