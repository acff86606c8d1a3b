// `warpfold profile` on the device: the warpfold binary run as a user runs it, under the real ncu.
// Skips visibly without a GPU, and without ncu (exit code 5); a run that cannot read the counters
// (ERR_NVGPUCTRPERM, exit code 6) fails with ncu's message.
#include "gpu/gpu_test_support.hpp"
#include "harness/run_outcome.hpp"
#include "lab/ladder/registry.hpp"
#include "profile/book_metrics.hpp"
#include "profile/profile_session.hpp"
#include "profile/subprocess.hpp"
#include "profile/warp_state_metrics.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#ifndef WARPFOLD_CLI_PATH
#error "WARPFOLD_CLI_PATH must name the warpfold executable"
#endif

using nlohmann::json;
using namespace warpfold::profile;
using warpfold::harness::RunStopped;

#define WARPFOLD_REQUIRE_NCU()                                              \
  do {                                                                      \
    try {                                                                   \
      find_ncu(std::nullopt);                                               \
    } catch (const RunStopped& f) {                                     \
      GTEST_SKIP() << "ncu not found, profile test not run: " << f.what(); \
    }                                                                       \
  } while (0)

namespace {

// `warpfold profile ARGS... --format json`, its JSON document; a failed run fails the test.
json profile_json(std::vector<std::string> args) {
  args.insert(args.begin(), {WARPFOLD_CLI_PATH, "profile"});
  args.insert(args.end(), {"--format", "json", "--timeout", "400"});
  ProcessOptions o;
  o.timeout_seconds = 450;
  const ProcessResult r = run_process(args, o);
  EXPECT_TRUE(r.ok()) << r.describe(450) << "\nstderr:\n" << r.err << "\nstdout:\n" << r.out.substr(0, 4000);
  if (!r.ok()) return json();
  return json::parse(r.out);
}

bool note_has(const json& table, const std::string& text) {
  for (const auto& n : table["notes"]) {
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

// Every row has a CUDA-event time and a number for every metric of the book, but those in
// `undefined`: a ratio with nothing to count (no global load, no branch) may be "n/a".
void expect_complete_rows(const json& table, const std::vector<std::string>& undefined = {}) {
  ASSERT_FALSE(table["rows"].empty());
  for (const json& row : table["rows"]) {
    const std::string kernel = row["kernel"].get<std::string>();
    EXPECT_TRUE(row["time_ms"].is_number()) << kernel;
    for (const BookMetric& m : book_metrics()) {
      if (std::find(undefined.begin(), undefined.end(), m.book) != undefined.end()) continue;
      EXPECT_TRUE(row[std::string(m.key)].is_number()) << kernel << ": " << m.book << " (" << m.ncu << ") is "
                                                       << row[std::string(m.key)].dump();
    }
  }
  EXPECT_FALSE(note_has(table, "is not in ncu's results")) << table["notes"].dump(2);
  EXPECT_FALSE(note_has(table, "ncu also profiled")) << table["notes"].dump(2);
}

}  // namespace

TEST(ProfileGpu, LadderEveryKernelRowHasNumericMetrics) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_NCU();
  const json doc = profile_json({"ladder", "--n", "2^20"});
  ASSERT_TRUE(doc.is_object());
  const json& table = doc["tables"][0];
  // Every registry kernel, book and fixed: at 2^20 the book's rule launches all of them.
  EXPECT_EQ(table["rows"].size(), warpfold::lab::ladder_kernels().size());
  expect_complete_rows(table);
  for (const json& row : table["rows"]) EXPECT_EQ(row["check"], "ok") << row["kernel"];
  EXPECT_FALSE(doc["meta"]["ncu"]["path"].get<std::string>().empty());
  // The warp scheduler's table: every rate measured (a scheduler holds at most 16 warps and issues
  // at most one per cycle; ncu's averages over a short kernel's active cycles overshoot the
  // warps' bound by a few percent, 16.84 on an H200), and a top stall with its share of the cycles
  // between issues.
  ASSERT_EQ(doc["tables"].size(), 2u);
  const json& warps = doc["tables"][1];
  ASSERT_EQ(warps["rows"].size(), table["rows"].size());
  for (const json& row : warps["rows"]) {
    const std::string kernel = row["kernel"].get<std::string>();
    for (const SchedulerMetric& m : scheduler_metrics()) {
      EXPECT_TRUE(row[std::string(m.key)].is_number()) << kernel << ": " << m.ncu << "\n" << warps["notes"].dump(2);
    }
    EXPECT_GT(row["active_per_scheduler"].get<double>(), 0) << kernel;
    EXPECT_LE(row["active_per_scheduler"].get<double>(), 16.0 * 1.1) << kernel;
    EXPECT_LE(row["eligible_per_scheduler"].get<double>(), row["active_per_scheduler"].get<double>()) << kernel;
    EXPECT_LE(row["issued_per_scheduler"].get<double>(), 1.0) << kernel;
    EXPECT_TRUE(row["stall1"].is_string()) << kernel;
    EXPECT_GT(row["stall1_pct"].get<double>(), 0) << kernel;
    EXPECT_LT(row["stall1_pct"].get<double>(), 100) << kernel;
  }
  EXPECT_FALSE(note_has(warps, "ncu did not report")) << warps["notes"].dump(2);
}

TEST(ProfileGpu, DivergenceAndGridProfileEveryRow) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_NCU();
  const json divergence = profile_json({"divergence", "--n", "2^16"});
  ASSERT_TRUE(divergence.is_object());
  EXPECT_EQ(divergence["tables"][0]["rows"].size(), 16u);  // 8 kernels, -O3 and -G
  // The kernels only store, and at -O3 their branches are predicated away.
  expect_complete_rows(divergence["tables"][0], {"gld_efficiency", "branch_efficiency"});
  const json grid = profile_json({"grid", "--nx", "1024", "--ny", "1024", "--blocks", "32x32,16x16,256x8"});
  ASSERT_TRUE(grid.is_object());
  EXPECT_EQ(grid["tables"][0]["rows"].size(), 2u);  // 256x8 is an invalid configuration: not launched
  expect_complete_rows(grid["tables"][0], {"branch_efficiency"});  // its bounds test is a predicated EXIT
}

TEST(ProfileGpu, NestedTopGridsAreProfiled) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_NCU();
  const json doc = profile_json({"nested", "--n", "2^12", "--block", "128"});
  ASSERT_TRUE(doc.is_object());
  const json& table = doc["tables"][0];
  ASSERT_EQ(table["rows"].size(), 4u);  // neighbored, nested, nestedNosync, nested2
  for (const json& row : table["rows"]) {
    EXPECT_TRUE(row["inst_per_warp"].is_number()) << row["kernel"] << "\n" << table["notes"].dump(2);
    EXPECT_EQ(row["check"], "ok") << row["kernel"];
  }
}
