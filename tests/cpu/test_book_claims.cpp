// The chapter's claims judged on a run: verdicts from made-up results and from a run recorded on
// an NVIDIA H200, book figures from the embedded data file.
#include "cpu/book_test_support.hpp"
#include "lab/book/book_claims.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

using namespace warpfold::lab::book;
using book_test::table_keys;
using nlohmann::json;
namespace report = warpfold::report;

TEST(BookClaims, VerdictFollowsTheRatio) {
  EXPECT_EQ(verdict_of(1.5), Verdict::holds);
  EXPECT_EQ(verdict_of(0.5), Verdict::reversed);
  EXPECT_EQ(verdict_of(1.01), Verdict::no_clear_difference);
  EXPECT_EQ(verdict_of(0.99), Verdict::no_clear_difference);
  EXPECT_EQ(verdict_of(std::nullopt), Verdict::not_measurable);
  EXPECT_EQ(verdict_of(std::nan("")), Verdict::not_measurable);
  EXPECT_EQ(verdict_of(0.0), Verdict::not_measurable);
  EXPECT_EQ(to_string(Verdict::not_measurable), "not measurable here");
}

TEST(BookClaims, EveryClaimNamesRowsItsLessonHas) {
  for (const Claim& c : chapter_claims()) {
    ASSERT_TRUE(lesson_book_columns(c.section)) << c.text;
    if (c.by_occupancy) continue;
    const auto keys = table_keys(c.section);
    EXPECT_EQ(keys.count(c.winner), 1u) << c.text;
    EXPECT_EQ(keys.count(c.loser), 1u) << c.text;
  }
}

namespace {

json section(const std::string& key, const std::string& status, std::vector<json> rows) {
  return {{"key", key}, {"status", status}, {"report", {{"tables", json::array({{{"rows", rows}}})}}}};
}

json ladder_row(const std::string& kernel, const std::string& variant, double ms) {
  return {{"kernel", kernel}, {"variant", variant}, {"median_ms", ms}};
}

json claim_row(const report::Table& t, const std::string& text) {
  const json doc = report::to_json(t);
  for (const json& r : doc["rows"]) {
    if (r["claim"] == text) return r;
  }
  throw std::runtime_error("no claim " + text);
}

}  // namespace

TEST(BookClaims, VerdictsComeFromTheRunsRows) {
  json results;
  results["lessons"] = json::array({
      section("ladder", "ok",
              {ladder_row("reduceNeighbored", "book", 10), ladder_row("reduceNeighbored", "fixed", 1),
               ladder_row("reduceInterleaved", "book", 5), ladder_row("reduceUnrolling8", "book", 2),
               ladder_row("reduceUnrollWarps8", "book", 3)}),
      section("grid", "ok",
              {{{"block", "32x32"}, {"median_ms", 1.0}, {"occupancy_pct", 100.0}},
               {{"block", "16x16"}, {"median_ms", 2.0}, {"occupancy_pct", 100.0}}}),
      section("nested", "cpu-only", {{{"kernel", "neighbored"}, {"median_ms", 1.0}}}),
  });
  const report::Table t = claims_table(results, numbers());
  const json interleaved = claim_row(t, "Interleaved beats Neighbored");
  EXPECT_DOUBLE_EQ(interleaved["here_ratio"].get<double>(), 2.0) << "the book variant's rows, not the fixed one's";
  EXPECT_EQ(interleaved["verdict"], "holds");
  EXPECT_DOUBLE_EQ(interleaved["book_ratio"].get<double>(), 11.722 / 6.967);
  EXPECT_EQ(interleaved["book_source"], "Tesla M2070, seed 004 (3.4.3)");
  EXPECT_EQ(interleaved["section"], "ladder");
  const json warps = claim_row(t, "warp unrolling helps");
  EXPECT_EQ(warps["verdict"], "reversed");
  EXPECT_DOUBLE_EQ(warps["book_ratio"].get<double>(), 1.294 / 1.009);
  EXPECT_EQ(claim_row(t, "unrolling 8 beats 4")["verdict"], "not measurable here") << "no reduceUnrolling4 row";
  EXPECT_TRUE(claim_row(t, "unrolling 8 beats 4")["book_ratio"].is_null()) << "no seed times both";
  EXPECT_EQ(claim_row(t, "more occupancy is faster")["verdict"], "not measurable here") << "one occupancy for all";
  EXPECT_DOUBLE_EQ(claim_row(t, "more occupancy is faster")["book_ratio"].get<double>(), 60.0 / 46.0);
  EXPECT_EQ(claim_row(t, "nested launches are slow (neighbored beats nested)")["verdict"], "not measurable here");
  EXPECT_EQ(claim_row(t, "divergent warps are slower (mathKernel2 beats mathKernel1)")["verdict"],
            "not measurable here") << "no divergence section";
  EXPECT_EQ(t.rows.size(), chapter_claims().size());
}

TEST(BookClaims, OccupancyClaimComparesTheExtremes) {
  const Claim& occupancy = *std::find_if(chapter_claims().begin(), chapter_claims().end(),
                                         [](const Claim& c) { return c.by_occupancy; });
  SectionRows s{{{{"block", "a"}, {"median_ms", 3.0}, {"occupancy_pct", 50.0}},
                 {{"block", "b"}, {"median_ms", 1.0}, {"occupancy_pct", 75.0}},
                 {{"block", "c"}, {"median_ms", 2.0}, {"occupancy_pct", 100.0}},
                 {{"block", "d"}, {"median_ms", nullptr}, {"occupancy_pct", 25.0}}},
                lesson_book_columns("grid")->rule, "median_ms"};
  EXPECT_DOUBLE_EQ(*here_ratio(occupancy, s), 3.0 / 2.0) << "an untimed row does not count";
}

TEST(BookClaims, OccupancyClaimLooksOnlyAtTheBooksShapes) {
  const Claim& occupancy = *std::find_if(chapter_claims().begin(), chapter_claims().end(),
                                         [](const Claim& c) { return c.by_occupancy; });
  // Every shape the book ran sits at one occupancy; an 80-thread block (3 warps) does not, and is
  // no shape of the book's.
  SectionRows s{{{{"block", "32x32"}, {"median_ms", 1.0}, {"occupancy_pct", 100.0}},
                 {{"block", "16x16"}, {"median_ms", 1.1}, {"occupancy_pct", 100.0}},
                 {{"block", "80x1"}, {"median_ms", 2.0}, {"occupancy_pct", 98.4}}},
                lesson_book_columns("grid")->rule, "median_ms"};
  EXPECT_TRUE(here_ratio(occupancy, s).has_value()) << "without the book, every shape counts";
  EXPECT_FALSE(here_ratio(occupancy, s, &numbers()).has_value()) << "the book's shapes share one occupancy";
}

namespace {

// A grid section whose theoretical occupancy is 100% for every shape (as on sm_90), and its
// profiled section with `achieved` (occupancy %, time ms) per shape: the book's 32x32, 32x16,
// 16x32, then 80x1, which is no shape of the book's.
json occupancy_results(const std::string& profile_status, const std::vector<std::pair<double, double>>& achieved) {
  static const char* const shapes[] = {"32x32", "32x16", "16x32", "80x1"};
  std::vector<json> profiled;
  for (size_t i = 0; i < achieved.size(); ++i) {
    profiled.push_back({{"kernel", shapes[i]},
                        {"time_ms", achieved[i].second},
                        {"achieved_occupancy_pct", achieved[i].first < 0 ? json(nullptr) : json(achieved[i].first)}});
  }
  json results;
  results["lessons"] = json::array({
      section("grid", "ok",
              {{{"block", "32x32"}, {"median_ms", 1.0}, {"occupancy_pct", 100.0}},
               {{"block", "16x16"}, {"median_ms", 2.0}, {"occupancy_pct", 100.0}}}),
      section("grid-profile", profile_status, profiled),
  });
  return results;
}

bool any_note_has(const report::Table& t, const std::string& text) {
  return std::any_of(t.notes.begin(), t.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

// The grid table's theoretical occupancy is the same for every shape; ncu's achieved occupancy,
// from the profiled section, is what the claim is judged on where the run has it.
TEST(BookClaims, OccupancyClaimUsesTheAchievedOccupancyWhereProfiled) {
  const std::string claim = "more occupancy is faster";
  // 80x1's extremes do not count: the book has no such shape.
  report::Table t =
      claims_table(occupancy_results("ok", {{74.8, 0.95}, {51.0, 1.27}, {68.0, 1.17}, {20.0, 9.0}}), numbers());
  EXPECT_DOUBLE_EQ(claim_row(t, claim)["here_ratio"].get<double>(), 1.27 / 0.95);
  EXPECT_EQ(claim_row(t, claim)["verdict"], "holds");
  EXPECT_TRUE(any_note_has(t, "this run's is ncu's achieved occupancy (sm__warps_active.avg.pct_of_peak_sustained_active) "
                              "from the grid-profile section"));
  t = claims_table(occupancy_results("ok", {{80.0, 2.0}, {50.0, 1.0}}), numbers());
  EXPECT_EQ(claim_row(t, claim)["verdict"], "reversed");
  // Skipped (no ncu), or no two achieved occupancies to compare: the theoretical one, as before.
  for (const json& results : {occupancy_results("skipped", {{80.0, 2.0}, {50.0, 1.0}}),
                              occupancy_results("ok", {{80.0, 2.0}, {-1, 1.0}})}) {
    t = claims_table(results, numbers());
    EXPECT_EQ(claim_row(t, claim)["verdict"], "not measurable here");
    EXPECT_TRUE(any_note_has(t, "this run's is the grid table's theoretical occupancy"));
  }
}

// The recorded H200 run: its verdicts follow from its own rows.
TEST(BookClaims, RecordedH200Run) {
  std::ifstream f(std::string(WARPFOLD_TEST_DATA_DIR) + "/report/results_h200.json");
  ASSERT_TRUE(f) << "missing fixture";
  const json results = json::parse(f);
  const report::Table t = claims_table(results, numbers());
  EXPECT_EQ(claim_row(t, "Interleaved beats Neighbored")["verdict"], "holds");
  EXPECT_EQ(claim_row(t, "unrolling 8 beats 4")["verdict"], "holds");
  // The book's volatile warp unrolling stores to global memory at every step: slower on the H200.
  EXPECT_EQ(claim_row(t, "warp unrolling helps")["verdict"], "reversed");
  EXPECT_EQ(claim_row(t, "nested launches are slow (neighbored beats nested)")["verdict"], "holds");
}
