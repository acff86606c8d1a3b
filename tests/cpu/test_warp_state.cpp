// The warp scheduler's counters: the metrics asked of ncu, and the table ranking each kernel's
// stall reasons, read from a sample of ncu's CSV (tests/data/ncu/README.md) with n/a and a
// metric ncu did not report.
#include "cpu/profile_test_data.hpp"
#include "profile/book_metrics.hpp"
#include "profile/ncu_run.hpp"
#include "profile/profile_table.hpp"
#include "profile/warp_state_metrics.hpp"
#include "profile/warp_state_table.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace warpfold::profile;
using warpfold::testing::read_test_data;
using warpfold::testing::test_data_path;
using nlohmann::json;

namespace {

json row_object(const warpfold::report::Table& t, size_t row) { return warpfold::report::to_json(t)["rows"][row]; }

size_t notes_with(const warpfold::report::Table& t, const std::string& text) {
  size_t n = 0;
  for (const auto& note : t.notes) n += note.find(text) != std::string::npos;
  return n;
}

size_t occurrences(const std::string& list, const std::string& name) {
  size_t n = 0;
  for (size_t at = list.find(name); at != std::string::npos; at = list.find(name, at + 1)) {
    const size_t end = at + name.size();
    n += (at == 0 || list[at - 1] == ',') && (end == list.size() || list[end] == ',');
  }
  return n;
}

warpfold::report::Table sample_table() {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/ladder_warp_state_sample.csv"));
  const auto launches = LaunchManifest::read(test_data_path("ncu/ladder_warp_state_launches.tsv")).launches();
  return warp_state_table("ladder", launches, kernels);
}

}  // namespace

TEST(WarpStateMetrics, NamesFollowNsightComputesScheme) {
  EXPECT_EQ(stall_metric("long_scoreboard"), "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
  EXPECT_EQ(warp_cycles_per_issue().ncu, "smsp__average_warp_latency_per_inst_issued.ratio");
  const std::set<std::string_view> reasons(stall_reasons().begin(), stall_reasons().end());
  EXPECT_EQ(reasons.size(), stall_reasons().size()) << "a reason listed twice";
  for (std::string_view r : {"barrier", "long_scoreboard", "short_scoreboard", "wait", "not_selected", "mio_throttle",
                             "lg_throttle", "math_pipe_throttle", "no_instruction", "branch_resolving"}) {
    EXPECT_EQ(reasons.count(r), 1u) << r;
  }
  EXPECT_EQ(reasons.count(kSelected), 1u) << "collected, so that the reasons add up to cycles/issue";
  const auto names = warp_state_metric_names();
  EXPECT_EQ(names.size(), scheduler_metrics().size() + stall_reasons().size());
  EXPECT_EQ(names.front(), "smsp__warps_active.avg.per_cycle_active");
}

TEST(WarpStateMetrics, AskedOfNcuOnlyWhenWantedAndEachOnce) {
  const std::string book = ncu_metric_list(false), all = ncu_metric_list(true);
  for (const BookMetric& m : book_metrics()) {
    EXPECT_EQ(occurrences(book, std::string(m.ncu)), 1u) << m.ncu;
    EXPECT_EQ(occurrences(all, std::string(m.ncu)), 1u) << m.ncu;
  }
  for (const std::string& name : warp_state_metric_names()) EXPECT_EQ(occurrences(all, name), 1u) << name;
  EXPECT_EQ(occurrences(book, "smsp__warps_eligible.avg.per_cycle_active"), 0u);
  // The book's stall_sync is the barrier stall reason: one metric, asked for once.
  EXPECT_EQ(occurrences(all, stall_metric("barrier")), 1u);
  EXPECT_EQ(all.find(' '), std::string::npos);
}

TEST(WarpStateTable, RowsRankTheirStallsByShareOfTheCyclesBetweenIssues) {
  const auto t = sample_table();
  ASSERT_EQ(t.rows.size(), 5u);
  ASSERT_EQ(t.columns.size(), 1 + scheduler_metrics().size() + 2 * kTopStalls);
  const json r = row_object(t, 0);
  EXPECT_EQ(r["kernel"], "reduceInterleaved (book)");
  EXPECT_DOUBLE_EQ(r["active_per_scheduler"].get<double>(), 13.42);
  EXPECT_DOUBLE_EQ(r["eligible_per_scheduler"].get<double>(), 0.61);
  EXPECT_DOUBLE_EQ(r["issued_per_scheduler"].get<double>(), 0.42);
  EXPECT_DOUBLE_EQ(r["cycles_per_issue"].get<double>(), 27.8);
  EXPECT_EQ(r["stall1"], "long_scoreboard");
  EXPECT_NEAR(r["stall1_pct"].get<double>(), 100 * 12.10 / 27.80, 1e-9);
  EXPECT_EQ(r["stall2"], "barrier");
  EXPECT_NEAR(r["stall2_pct"].get<double>(), 100 * 10.36 / 27.80, 1e-9);
  EXPECT_EQ(r["stall3"], "wait") << "'selected' (1 per issue) is not ranked";
  EXPECT_NEAR(r["stall3_pct"].get<double>(), 100 * 1.50 / 27.80, 1e-9);
  const json unrolled = row_object(t, 2);
  EXPECT_EQ(unrolled["stall1"], "long_scoreboard");
  EXPECT_EQ(unrolled["stall2"], "barrier");
  EXPECT_EQ(unrolled["stall3"], "lg_throttle");
  EXPECT_EQ(notes_with(t, "smsp__warps_eligible.avg.per_cycle_active"), 2u) << "the mapping, and one n/a note";
  EXPECT_EQ(notes_with(t, "ncu also profiled"), 0u);
}

TEST(WarpStateTable, NaAndUnreportedMetricsLeaveEmptyCellsAndAreNamed) {
  const auto t = sample_table();
  const json fixed = row_object(t, 1);
  EXPECT_EQ(fixed["kernel"], "reduceInterleaved (fixed)");
  EXPECT_TRUE(fixed["eligible_per_scheduler"].is_null());
  EXPECT_DOUBLE_EQ(fixed["active_per_scheduler"].get<double>(), 13.58);
  EXPECT_EQ(fixed["stall1"], "long_scoreboard") << "the other reasons still rank";
  EXPECT_EQ(notes_with(t, "ncu printed \"n/a\" for smsp__warps_eligible.avg.per_cycle_active: reduceInterleaved (fixed)"), 1u);
  EXPECT_EQ(notes_with(t, "ncu printed \"n/a\" for " + stall_metric("tex_throttle") + ": reduceInterleaved (fixed)"), 1u);
  EXPECT_EQ(notes_with(t, "ncu did not report " + stall_metric("membar") + ": reduceInterleaved (fixed)"), 1u);
  // Without cycles/issue the reasons rank by their own values, and their shares are unknown.
  const json warps8 = row_object(t, 3);
  EXPECT_TRUE(warps8["cycles_per_issue"].is_null());
  EXPECT_EQ(warps8["stall1"], "long_scoreboard");
  EXPECT_TRUE(warps8["stall1_pct"].is_null());
  EXPECT_EQ(warps8["stall3"], "lg_throttle");
  EXPECT_EQ(notes_with(t, "ncu printed \"n/a\" for smsp__average_warp_latency_per_inst_issued.ratio: "
                          "reduceUnrollWarps8 (book)"), 1u) << "noted once, though read for the column and the shares";
  // A launch ncu did not profile: an empty row, and the reason.
  const json missing = row_object(t, 4);
  EXPECT_EQ(missing["kernel"], "reduceCompleteUnroll (book)");
  EXPECT_TRUE(missing["active_per_scheduler"].is_null());
  EXPECT_TRUE(missing["stall1"].is_null());
  EXPECT_EQ(notes_with(t, "reduceCompleteUnroll (book): reduceCompleteUnroll is not in ncu's results"), 1u);
}

TEST(WarpStateTable, FewerReasonsThanTheTopLeaveTheRestEmpty) {
  NcuKernel k;
  k.name = "k()";
  k.metrics = {{warp_cycles_per_issue().ncu.data(), {"cycle", "5"}}, {stall_metric("wait"), {"inst", "3"}},
               {stall_metric(kSelected), {"inst", "1"}}, {stall_metric("barrier"), {"inst", "1"}}};
  MissingMetrics missing;
  const auto stalls = top_stalls(k, kTopStalls, missing, "k");
  ASSERT_EQ(stalls.size(), 2u) << "zeros and 'selected' are no stall";
  EXPECT_EQ(stalls[0].reason, "wait");
  EXPECT_DOUBLE_EQ(*stalls[0].share_pct, 60);
  EXPECT_EQ(stalls[1].reason, "barrier");
  // Every other reason is unreported here: named, once each.
  EXPECT_EQ(missing.notes().size(), stall_reasons().size() - 3);
}
