#pragma once
// The chapter's claims, each judged on this run: the book's figure, this GPU's, and a verdict,
// derived from results.json's lesson tables and the book's numbers; nothing is decided in advance.

#include "lab/book/book_compare.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace warpfold::lab::book {

enum class Verdict { holds, reversed, no_clear_difference, not_measurable };

// "holds", "reversed", "no clear difference", "not measurable here".
std::string to_string(Verdict verdict);

// A claim's verdict from its ratio on this GPU (the loser's time / the winner's): above 1 by more
// than the tolerance it holds, below by more it is reversed; nullopt: not measurable here.
Verdict verdict_of(std::optional<double> ratio, double tolerance = kTieTolerance);

// "A beats B": A's time is smaller than B's. Both are rows of the lesson's first table, named as
// the book's numbers key them; with `by_occupancy`, A is the shape of highest occupancy, B of lowest.
struct Claim {
  std::string text;       // as the chapter states it
  std::string section;    // the report section (and lesson) that measures it
  std::string winner, loser;
  bool by_occupancy = false;
  std::string doc;        // where this project explains the finding
  // By occupancy: the lesson's profiled section, whose achieved occupancy (ncu) judges the claim
  // where the run has it; the lesson's own table has only the theoretical one.
  std::string profiled_section = {};
};

// The chapter's claims, in its order.
const std::vector<Claim>& chapter_claims();

// The first table of `section`'s lesson in results.json, its rows keyed by the book's keys.
struct SectionRows {
  std::vector<nlohmann::json> rows;  // row objects, as results.json holds them
  RowKeyRule rule;
  std::string time_column;
  std::string occupancy_column = "occupancy_pct";  // a claim by occupancy reads it (the lesson's: theoretical)
};

// The claims table: claim, section, book_ratio, book_source, here_ratio, verdict, doc. `results`
// is results.json's document; a section that is missing, did not run on a GPU or failed makes
// its claims "not measurable here".
report::Table claims_table(const nlohmann::json& results, const Numbers& numbers);

// One claim's ratio on this GPU (the loser's time / the winner's) from a section's rows; nullopt
// where a row is missing or untimed, or (by occupancy) where every shape has the same occupancy.
// With `book`, an occupancy claim looks only at the shapes the book measured, so that shapes the
// lab adds for other lessons (partial warps) do not stand in for the book's comparison.
std::optional<double> here_ratio(const Claim& claim, const SectionRows& section, const Numbers* book = nullptr);

// The rows a claim by occupancy is judged on: its profiled section's, with ncu's achieved
// occupancy, where the run has that section and it measures two occupancies or more (with times);
// else the lesson's own, with the theoretical occupancy; nullopt where the run has neither.
// With `book`, as here_ratio, only the shapes the book measured count.
std::optional<SectionRows> occupancy_rows(const Claim& claim, const nlohmann::json& results,
                                          const Numbers* book = nullptr);

// The same ratio in the book: the first run of the lesson holding both rows timed.
struct BookRatio {
  double ratio = 0;
  const Run* run = nullptr;
};
std::optional<BookRatio> book_ratio(const Claim& claim, const Numbers& numbers);

}  // namespace warpfold::lab::book
