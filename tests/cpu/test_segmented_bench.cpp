// `warpfold bench --segmented` / `--axis`: the options, and the shapes and segment lengths the
// bench draws (bench/segmented_bench.hpp), on the CPU.
#include "bench/segmented_bench.hpp"
#include "cli/bench_command.hpp"
#include "cpu/cli_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

using namespace warpfold;

namespace {

TEST(SegmentedBenchCli, KindsAndSize) {
  auto p = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--segmented", "--elements", "2^20", "--reps", "7"});
  EXPECT_TRUE(p->opts.segmented.segmented);
  EXPECT_FALSE(p->opts.segmented.axis);
  const auto o = cli::segmented_bench_request(p->opts.segmented, 7, std::nullopt);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->log2_elements, 20u);
  EXPECT_EQ(o->reps, 7);
  EXPECT_FALSE(o->axis);
  auto none = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {});
  EXPECT_FALSE(cli::segmented_bench_request(none->opts.segmented, 50, std::nullopt).has_value());
}

TEST(SegmentedBenchCli, ConflictsAndBadSizesAreRejected) {
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--axis", "--pow2", "10:20"}).empty());
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--segmented", "--types", "int8"}).empty());
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--segmented", "--elements", "1000"}).empty());
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--axis", "--elements", "2^31"}).empty());
  auto alone = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--elements", "2^20"});
  EXPECT_THROW(cli::segmented_bench_request(alone->opts.segmented, 50, std::nullopt), std::invalid_argument);
}

TEST(SegmentedBench, ShapesOfTheIssueTable) {
  bench::SegmentedBenchOptions o;
  const auto shapes = bench::segmented_bench_shapes(o);
  const auto has = [&](bench::ShapeKind kind, const std::string& name) {
    return std::any_of(shapes.begin(), shapes.end(), [&](const bench::BenchShape& s) { return s.kind == kind && s.name == name; });
  };
  for (const char* name : {"2^24 x 4", "2^20 x 64", "2^16 x 1024", "64 x 2^20", "4 x 2^24", "2^22 x 16", "2^13 x 2^13",
                           "1 x 2^26"}) {
    EXPECT_TRUE(has(bench::ShapeKind::segmented, name)) << name;
    EXPECT_TRUE(has(bench::ShapeKind::fixed, name)) << name;
    EXPECT_TRUE(has(bench::ShapeKind::axis, std::string(name) + ", dim=1")) << name;
    EXPECT_TRUE(has(bench::ShapeKind::axis, std::string(name) + ", dim=0")) << name;
  }
  EXPECT_TRUE(has(bench::ShapeKind::axis, "2^13 x 2^13, x.T.sum(1)"));
  EXPECT_TRUE(has(bench::ShapeKind::axis, "2^13 x 2^13, x[:, ::2].sum(1)"));
  EXPECT_TRUE(has(bench::ShapeKind::segmented, "1024 x 2^16"));  // between one block and pieces
  EXPECT_TRUE(has(bench::ShapeKind::fixed, "1024 x 2^16"));
  EXPECT_TRUE(has(bench::ShapeKind::segmented, "uniform [0, 8]"));
  EXPECT_TRUE(has(bench::ShapeKind::segmented, "uniform [0, 8192]"));
  o.axis = false;
  for (const auto& s : bench::segmented_bench_shapes(o)) EXPECT_NE(s.kind, bench::ShapeKind::axis);
}

TEST(SegmentedBench, SegmentLengthsFitTheTotal) {
  bench::SegmentedBenchOptions o;
  o.log2_elements = 22;
  const uint64_t total = uint64_t(1) << o.log2_elements;
  for (const auto& s : bench::segmented_bench_shapes(o)) {
    if (s.kind != bench::ShapeKind::segmented) continue;
    const auto lengths = bench::segment_lengths(s, total, 11);
    const uint64_t sum = std::accumulate(lengths.begin(), lengths.end(), uint64_t(0));
    EXPECT_LE(sum, total) << s.name;
    if (!s.batch) EXPECT_GE(sum, total - total / 64) << s.name;
    switch (s.lengths) {
      case bench::Lengths::power_law:
        EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), total / 2) << "one segment holds half the data";
        break;
      case bench::Lengths::tenth_empty: {
        const double empty = double(std::count(lengths.begin(), lengths.end(), uint64_t(0))) / double(lengths.size());
        EXPECT_NEAR(empty, 0.1, 0.02);
        break;
      }
      case bench::Lengths::uniform:
        EXPECT_LE(*std::max_element(lengths.begin(), lengths.end()), 2 * s.mean);
        EXPECT_NEAR(double(sum) / double(lengths.size()), double(s.mean), double(s.mean) * 0.1);
        break;
      case bench::Lengths::equal:
        EXPECT_TRUE(std::all_of(lengths.begin(), lengths.end(), [&](uint64_t x) { return x == s.cols; })) << s.name;
        break;
    }
  }
}

// bench/segmented_torch.py times torch and cupy on the axis shapes of this bench: its list must
// stay the same as segmented_bench_shapes', or the two JSON files no longer line up.
TEST(SegmentedBench, PythonScriptTimesTheSameAxisShapes) {
  const std::string script = std::string(WARPFOLD_TEST_DATA_DIR) + "/../../bench/segmented_torch.py";
  FILE* p = ::popen(("python3 " + script + " --list --elements 22 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string listed;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, p)) listed += buffer;
  if (::pclose(p) != 0 && listed.empty()) GTEST_SKIP() << "python3 could not run " << script;
  bench::SegmentedBenchOptions o;
  o.segmented = false;
  o.log2_elements = 22;
  std::string expected;
  for (const auto& s : bench::segmented_bench_shapes(o)) expected += s.name + "\n";
  EXPECT_EQ(listed, expected);
}

}  // namespace
