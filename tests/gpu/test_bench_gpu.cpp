// `warpfold bench` on a device: every library (and the no-combine read, whose XOR of the input's
// words is checked like a result) gets a row at every size, with a real timing, a ratio to CUB
// and a passing check, on both sides of the L2 threshold (timed interleaved below half the L2, in
// turns of ten above).
#include "gpu/gpu_test_support.hpp"

#include "bench/bench_run.hpp"
#include "bench/segmented_bench.hpp"
#include "bench/reduce_runners.hpp"
#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace warpfold;

namespace {

TEST(BenchGpu, EveryLibraryHasATimedCheckedRowAtEverySize) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(uint64_t(1) << 26);
  bench::BenchOptions o;
  o.log2_min = 10;
  o.log2_max = 26;  // 2^26 floats: 256 MiB, past half of any current L2
  o.log2_step = 8;
  o.types = {bench::ElementType::float32};
  o.ops = {bench::ReduceOp::sum};
  o.reps = 3;
  o.cpu = false;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = bench::run_bench(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  EXPECT_GT(out.report.meta.at("launch_floor_us").get<double>(), 0);
  EXPECT_GT(out.report.meta.at("launch_floor_driver_us").get<double>(), 0);
  ASSERT_EQ(out.report.tables.size(), 1u);
  const auto& t = out.report.tables[0];
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < t.columns.size(); ++i) col[t.columns[i].key] = i;
  std::map<uint64_t, std::set<std::string>> libraries_at;
  for (const auto& row : t.rows) {
    const auto n = row[col.at("n")].get<uint64_t>();
    const auto lib = row[col.at("library")].get<std::string>();
    libraries_at[n].insert(lib);
    const double median = row[col.at("median_us")].get<double>();
    EXPECT_TRUE(std::isfinite(median) && median > 0) << lib << " n=" << n;
    EXPECT_LE(row[col.at("min_us")].get<double>(), median) << lib << " n=" << n;
    EXPECT_GE(row[col.at("max_us")].get<double>(), median) << lib << " n=" << n;
    EXPECT_GT(row[col.at("ratio_vs_cub")].get<double>(), 0) << lib << " n=" << n;
    EXPECT_GT(row[col.at("x_launch_floor")].get<double>(), 0) << lib << " n=" << n;
    EXPECT_GT(row[col.at("x_driver_floor")].get<double>(), 0) << lib << " n=" << n;
    EXPECT_EQ(row[col.at("check")].get<std::string>(), "ok") << lib << " n=" << n;
  }
  // Float sums also get the reproducible sum's row.
  const std::set<std::string> expected{"cub", "warpfold", "warpfold (again)", "warpfold reproducible", "thrust", "no combine"};
  ASSERT_EQ(libraries_at.size(), 3u);  // 2^10, 2^18, 2^26
  for (const auto& [n, libs] : libraries_at) EXPECT_EQ(libs, expected) << "n=" << n;
}

// Sizes below one 16-byte vector (1 to 8 elements): every row still runs and passes its check;
// the no-combine row reads the whole vectors there are (none below 16 bytes), and its check XORs
// the same words.
TEST(BenchGpu, TinySizesGetCheckedRowsToo) {
  WARPFOLD_REQUIRE_GPU();
  bench::BenchOptions o;
  o.log2_min = 0;
  o.log2_max = 3;
  o.types = {bench::ElementType::int32, bench::ElementType::float64};
  o.ops = {bench::ReduceOp::max};
  o.reps = 3;
  o.cpu = false;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = bench::run_bench(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& t = out.report.tables.at(0);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < t.columns.size(); ++i) col[t.columns[i].key] = i;
  size_t no_combine_rows = 0;
  for (const auto& row : t.rows) {
    const auto lib = row[col.at("library")].get<std::string>();
    EXPECT_EQ(row[col.at("check")].get<std::string>(), "ok") << lib << " n=" << row[col.at("n")];
    if (lib == "no combine") ++no_combine_rows;
  }
  EXPECT_EQ(no_combine_rows, 8u);  // 2 types × 4 sizes
}

// Above 256 MiB the no-combine row reads the way warpfold's kernel does there: full tiles by bulk
// copies through shared memory where the device runs them, a partial last tile by loads. Sizes
// with a partial tile, and many tiles per block (the stages reused), still XOR every word of the
// input's whole 16-byte vectors: fresh random words, checked against the host's XOR.
TEST(BenchGpu, NoCombineRowAbove256MiBXorsEveryWholeVector) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t words = (uint64_t(1) << 26) + 8192 * 3 + 4 * 5 + 3;  // 256 MiB + 3 tiles + 5 vectors + 12 bytes
  WARPFOLD_REQUIRE_TEST_SIZE(words);
  const unsigned seed = unsigned(warpfold::testing::new_seed());
  std::mt19937 rng(seed);
  std::vector<uint32_t> host(words);
  for (auto& w : host) w = uint32_t(rng());
  harness::DeviceBuffer<uint32_t> input(words);
  WARPFOLD_CUDA_CHECK(cudaMemcpy(input.get(), host.data(), input.bytes(), cudaMemcpyHostToDevice));
  // The same bytes as int32 (4-byte elements) and as doubles (8-byte elements: one word fewer).
  const std::pair<bench::ElementType, uint64_t> cases[] = {{bench::ElementType::int32, words},
                                                           {bench::ElementType::float64, words / 2}};
  for (const auto& [type, n] : cases) {
    const uint64_t whole_words = n * bench::element_bytes(type) / 16 * 4;
    uint32_t expected = 0;
    for (uint64_t i = 0; i < whole_words; ++i) expected ^= host[i];
    auto row = bench::make_runner(bench::Library::no_combine, type, bench::ReduceOp::sum, input.get(), n, nullptr);
    row->run();
    row->run();  // a second launch reads the same words
    EXPECT_EQ(uint32_t(row->result()), expected) << bench::to_string(type) << " n=" << n << " seed=" << seed;
  }
}

// Turns of several repetitions: every run gets exactly `reps` timings, whatever the turn length,
// and a run that moves 256 MiB takes longer than one that moves 4 bytes.
TEST(TimerGpu, TurnsGiveEveryRunItsRepetitions) {
  WARPFOLD_REQUIRE_GPU();
  harness::DeviceBuffer<char> big(256u << 20);
  std::vector<std::function<void()>> runs{
      [&] { WARPFOLD_CUDA_CHECK(cudaMemsetAsync(big.get(), 1, 4, nullptr)); },
      [&] { WARPFOLD_CUDA_CHECK(cudaMemsetAsync(big.get(), 2, big.bytes(), nullptr)); }};
  for (int streak : {1, 3, 10}) {
    const auto stats = harness::time_in_turns(nullptr, 1, 7, streak, [] {}, runs);
    ASSERT_EQ(stats.size(), 2u);
    for (const auto& s : stats) EXPECT_EQ(s.reps, 7) << "turns of " << streak;
    EXPECT_GT(stats[1].min_ms, stats[0].median_ms) << "turns of " << streak;
  }
}

}  // namespace

// `warpfold bench --segmented --axis` at 2^21 floats per shape: every shape gets its probe,
// warpfold and (where it has the operation) CUB rows, or the copy's for strided views, each
// timed, warpfold's checked, with the ratios the targets are judged by.
TEST(BenchGpu, SegmentedBenchGivesEveryShapeItsCheckedRows) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(uint64_t(1) << 21);  // a timing tool: left out of the sanitizer's capped run
  bench::SegmentedBenchOptions o;
  o.log2_elements = 21;
  o.reps = 3;
  o.warmup = 1;
  o.seed = 7;
  const auto out = bench::run_segmented_bench(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  ASSERT_EQ(out.report.tables.size(), 1u);
  const auto& t = out.report.tables[0];
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < t.columns.size(); ++i) col[t.columns[i].key] = i;
  std::map<std::string, std::set<std::string>> libraries_of;
  for (const auto& row : t.rows) {
    const std::string shape = row[col.at("kind")].get<std::string>() + " " + row[col.at("shape")].get<std::string>();
    const auto lib = row[col.at("library")].get<std::string>();
    libraries_of[shape].insert(lib);
    const double median = row[col.at("median_us")].get<double>();
    EXPECT_TRUE(std::isfinite(median) && median > 0) << shape << " " << lib;
    EXPECT_GT(row[col.at("pct_roofline")].get<double>(), 0) << shape << " " << lib;
    if (lib != "roofline probe") EXPECT_EQ(row[col.at("check")].get<std::string>(), "ok") << shape << " " << lib;
    if (lib != "warpfold") continue;
    const bool strided = shape.find("x.T") != std::string::npos || shape.find("::2") != std::string::npos;
    const bool columns = shape.find("dim=0") != std::string::npos;
    EXPECT_EQ(row[col.at("ratio_vs_cub")].is_null(), strided || columns) << shape;
    EXPECT_EQ(row[col.at("ratio_vs_copy")].is_null(), !strided) << shape;
    EXPECT_EQ(row[col.at("x_driver_floor")].is_null(), shape.find("batch") == std::string::npos) << shape;
  }
  EXPECT_EQ(libraries_of.size(), bench::segmented_bench_shapes(o).size());
  for (const auto& [shape, libs] : libraries_of) {
    EXPECT_TRUE(libs.count("warpfold") && libs.count("roofline probe")) << shape;
  }
}
