// `warpfold warps` and `warpfold registers` on a device: the measured warps follow the rule for the
// seed's shapes and for random ones; every register variant is exact on an awkward size, within
// its cap, and limited by the resource the lesson says.
#include "gpu/gpu_test_support.hpp"

#include "harness/splitmix64.hpp"
#include "lab/registers/register_kernels.hpp"
#include "lab/registers/register_profile_pass.hpp"
#include "lab/registers/register_run.hpp"
#include "lab/warp_partition/warps_run.hpp"

#include <string>

using namespace warpfold;

namespace {

enum RegCol { kKernel, kLimit, kBookFlag, kRegisters, kLocalBytes, kSharedBytes, kBlocksPerSm, kOccupancy, kLimitedBy,
              kMedian, kMin, kMax, kCheck };

bool contains(const nlohmann::json& cell, const std::string& text) {
  return cell.is_string() && cell.get<std::string>().find(text) != std::string::npos;
}

TEST(WarpsGpu, TheSeedsEightyThreadsFollowTheRule) {
  WARPFOLD_REQUIRE_GPU();
  const auto out = lab::run_warps({});
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  for (const auto& row : out.report.tables.at(0).rows) EXPECT_EQ(row[7], "ok") << row[0];
  const auto& slices = out.report.tables.at(1).rows;
  ASSERT_EQ(slices.size(), 9u);
  EXPECT_EQ(slices[2][6], "0x0000ffff");  // 80x1's last warp: lanes 0-15
  EXPECT_EQ(slices[4][2], "(32,0)");      // 40x2's second warp starts at the end of row 0
  EXPECT_EQ(slices[4][3], "(23,1)");
}

TEST(WarpsGpu, RandomShapesFollowTheRuleInEveryBlock) {
  WARPFOLD_REQUIRE_GPU();
  harness::splitmix64 draw{warpfold::testing::new_seed()};  // replayable: WARPFOLD_TEST_SEED
  lab::WarpsOptions o;
  o.shapes.clear();
  for (int i = 0; i < 12; ++i) o.shapes.push_back({unsigned(1 + draw.below(64)), unsigned(1 + draw.below(16))});
  o.blocks = 5;
  const auto out = lab::run_warps(o);
  EXPECT_FALSE(out.check_failed);
  for (const auto& row : out.report.tables.at(0).rows) EXPECT_EQ(row[7], "ok") << row[0];
}

TEST(RegistersGpu, EveryVariantIsExactWithinItsCap) {
  WARPFOLD_REQUIRE_GPU();
  lab::RegistersOptions o;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  o.n = 1000 + *o.seed % 777;              // a partial last block
  o.reps = 2;
  const auto out = lab::run_registers(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), lab::registers::register_variants().size());
  for (const auto& row : rows) {
    const std::string name = row[kKernel].get<std::string>() + " " + row[kLimit].get<std::string>();
    EXPECT_EQ(row[kCheck], "ok") << name;
    EXPECT_TRUE(row[kMedian].is_number()) << name;
    const std::string limit = row[kLimit];
    if (limit.rfind("__maxnreg__(", 0) == 0) {
      EXPECT_LE(row[kRegisters].get<int>(), std::stoi(limit.substr(12))) << name;
    }
    if (row[kKernel] == "sharedHeavy") {
      EXPECT_EQ(row[kSharedBytes].get<int>(), 48 * 1024) << name;
      EXPECT_TRUE(contains(row[kLimitedBy], "shared memory")) << name << ": " << row[kLimitedBy];
    }
  }
  // Uncapped, the values take more registers than full occupancy allows; capped at 32 they spill.
  EXPECT_TRUE(contains(rows[0][kLimitedBy], "registers")) << rows[0][kLimitedBy];
  EXPECT_LT(rows[0][kOccupancy].get<double>(), 100.0);
  for (const auto& row : rows) {
    if (row[kKernel] == "registerHeavy" && row[kLimit] == "__maxnreg__(32)") {
      EXPECT_GT(row[kLocalBytes].get<int>(), 0);
      EXPECT_GT(row[kOccupancy].get<double>(), rows[0][kOccupancy].get<double>());
    }
  }
}

TEST(RegistersGpu, ProfilePassLaunchesEveryVariantOnce) {
  WARPFOLD_REQUIRE_GPU();
  lab::RegistersOptions o;
  o.n = 4099;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto manifest = lab::registers_profile_pass(o);
  ASSERT_EQ(manifest.launches().size(), lab::registers::register_variants().size());
  EXPECT_EQ(manifest.launches()[0].label, "registerHeavy none");
}

}  // namespace
