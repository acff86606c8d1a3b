// sumMatrixOnGPU2D over block shapes: exact against the CPU for every shape the device can launch,
// and a row saying "invalid configuration" (the run going on) for those it cannot.
#include "gpu/gpu_test_support.hpp"

#include "harness/device_limits.hpp"
#include "lab/grid_shape/grid_run.hpp"

#include <string>

using namespace warpfold;

namespace {

enum Col { kBlock = 0, kGrid = 1, kIdleLanes = 3, kMedian = 4, kGbps = 7, kOccupancy = 9, kCheck = 11, kBest = 12 };

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(GridRunGpu, EverySweepShapeIsExactOnAnOddMatrix) {
  WARPFOLD_REQUIRE_GPU();
  const auto limits = harness::query_device_limits(0);
  lab::GridOptions o;
  o.nx = 1000;  // a multiple of no block width: the bounds check matters
  o.ny = 777;
  o.reps = 2;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_grid(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), lab::grid_sweep_shapes().size());
  int best = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const lab::BlockShape shape = lab::grid_sweep_shapes()[i];
    EXPECT_EQ(rows[i][kIdleLanes].get<uint64_t>(), (32 - shape.threads() % 32) % 32) << shape.label();
    const std::string check = rows[i][kCheck];
    if (shape.threads() > uint64_t(limits.max_threads_per_block)) {
      EXPECT_TRUE(starts_with(check, "invalid configuration: threads per block")) << shape.label() << ": " << check;
      // The runtime refused the launch; CUDA 13 names it cudaErrorInvalidValue (older runtimes:
      // cudaErrorInvalidConfiguration).
      EXPECT_NE(check.find("(launch: cudaErrorInvalid"), std::string::npos) << check;
      EXPECT_TRUE(rows[i][kMedian].is_null());
      continue;
    }
    EXPECT_EQ(check, "ok") << shape.label();
    EXPECT_TRUE(rows[i][kMedian].is_number()) << shape.label();
    EXPECT_GT(rows[i][kGbps].get<double>(), 0) << shape.label();
    EXPECT_GT(rows[i][kOccupancy].get<double>(), 0) << shape.label();
    EXPECT_LE(rows[i][kOccupancy].get<double>(), 100.0) << shape.label();
    if (rows[i][kBest] == "best") ++best;
  }
  EXPECT_EQ(best, 1);
}

TEST(GridRunGpu, InvalidShapesInTheMiddleDoNotStopTheRun) {
  WARPFOLD_REQUIRE_GPU();
  lab::GridOptions o;
  o.nx = 513;
  o.ny = 257;
  o.reps = 2;
  o.shapes = {{32, 32}, {256, 8}, {2048, 1}, {16, 16}};
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_grid(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][kCheck], "ok");
  EXPECT_TRUE(starts_with(rows[1][kCheck], "invalid configuration")) << rows[1][kCheck];
  EXPECT_TRUE(starts_with(rows[2][kCheck], "invalid configuration")) << rows[2][kCheck];
  EXPECT_EQ(rows[3][kCheck], "ok");
  EXPECT_TRUE(rows[3][kMedian].is_number());
}

TEST(GridRunGpu, GridBeyondTheYLimitIsAnInvalidConfiguration) {
  WARPFOLD_REQUIRE_GPU();
  const auto limits = harness::query_device_limits(0);
  lab::GridOptions o;
  o.nx = 3;
  o.ny = uint64_t(limits.max_grid_dim[1]) + 10;  // 1x1 blocks: one block row too many
  o.reps = 2;
  o.shapes = {{1, 1}, {4, 2}};
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_grid(o);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  const std::string tall = rows.at(0)[kCheck];
  EXPECT_TRUE(starts_with(tall, "invalid configuration: grid.y")) << tall;
  EXPECT_NE(tall.find("(launch: cudaErrorInvalid"), std::string::npos) << tall;
  EXPECT_EQ(rows.at(1)[kCheck], "ok");
}

TEST(GridRunGpu, SeedSizeIsExact) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(16384ull * 16384);
  lab::GridOptions o;  // 16384 × 16384: 3 GiB on the device, the seed's matrix
  o.reps = 2;
  o.shapes = {{32, 32}, {256, 1}};
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_grid(o);
  EXPECT_FALSE(out.check_failed);
  for (const auto& row : out.report.tables.at(0).rows) EXPECT_EQ(row[kCheck], "ok") << row[kBlock];
  EXPECT_EQ(out.report.tables.at(0).rows.at(0)[kGrid], "512x512");
}

}  // namespace
