// Warp partitioning without a GPU: the rule's warps for the seed's 80-thread block, 1-D and 2-D,
// the lanes a partial warp wastes, the grid sweep's partial-warp shapes, and the grouping of
// recorded lanes back into warps, which must reject records that contradict one warp per ticket.
#include "lab/grid_shape/block_shape.hpp"
#include "lab/warp_partition/warp_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace warpfold;
using lab::BlockShape;
using lab::LaneRecord;
using lab::WarpSlice;

namespace {

// What the GPU records when it follows the rule, for blocks 0..blocks-1, shuffled, tickets
// handed out in a scrambled order.
std::vector<LaneRecord> rule_records(BlockShape b, unsigned blocks, unsigned seed) {
  std::vector<LaneRecord> out;
  const unsigned warps = lab::warp_budget(b).warps;
  for (unsigned blk = 0; blk < blocks; ++blk) {
    for (const WarpSlice& w : lab::model_warps(b)) {
      const uint32_t ticket = (blk * warps + w.first / 32) * 7919u % 10007u;
      for (unsigned t = w.first; t <= w.last; ++t) out.push_back({blk, t % b.x, t / b.x, t % 32, ticket, w.mask});
    }
  }
  std::shuffle(out.begin(), out.end(), std::mt19937(seed));
  return out;
}

}  // namespace

TEST(WarpModel, EightyThreadsAreThreeWarpsTheLastHalfIdle) {
  const auto warps = lab::model_warps({80, 1});
  ASSERT_EQ(warps.size(), 3u);
  EXPECT_EQ(warps[0], (WarpSlice{0, 31, 0xffffffffu}));
  EXPECT_EQ(warps[1], (WarpSlice{32, 63, 0xffffffffu}));
  EXPECT_EQ(warps[2], (WarpSlice{64, 79, 0x0000ffffu}));
  EXPECT_EQ(warps[2].lanes(), 16u);
  const auto budget = lab::warp_budget({80, 1});
  EXPECT_EQ(budget.warps, 3u);
  EXPECT_EQ(budget.lanes, 96u);
  EXPECT_EQ(budget.idle_lanes, 16u);
  EXPECT_NEAR(budget.lane_use_pct(), 100.0 * 80 / 96, 1e-9);
}

TEST(WarpModel, TwoDimensionalRowsAreLaidEndToEnd) {
  const BlockShape b{40, 2};
  const auto warps = lab::model_warps(b);
  ASSERT_EQ(warps.size(), 3u);
  EXPECT_EQ(lab::thread_label(b, warps[1].first), "(32,0)");
  EXPECT_EQ(lab::thread_label(b, warps[1].last), "(23,1)");
  EXPECT_EQ(lab::thread_label(b, warps[2].last), "(39,1)");
  const auto rows = lab::model_warps({16, 5});
  EXPECT_EQ(lab::thread_label({16, 5}, rows[2].first), "(0,4)");
  EXPECT_EQ(rows[2].mask, 0x0000ffffu);
  EXPECT_EQ(lab::warp_budget({16, 5}).idle_lanes, lab::warp_budget({80, 1}).idle_lanes);
  EXPECT_EQ(lab::warp_budget({32, 32}).idle_lanes, 0u);
  EXPECT_EQ(lab::warp_budget({33, 1}).idle_lanes, 31u);
  EXPECT_EQ(lab::mask_text(0xffffu), "0x0000ffff");
}

TEST(WarpModel, GridSweepIsTheSeedsShapesThenPartialWarps) {
  const auto& sweep = lab::grid_sweep_shapes();
  const auto& seed = lab::seed_block_shapes();
  ASSERT_GT(sweep.size(), seed.size());
  EXPECT_TRUE(std::equal(seed.begin(), seed.end(), sweep.begin()));
  for (size_t i = seed.size(); i < sweep.size(); ++i) {
    if (sweep[i] == BlockShape{96, 1}) continue;  // the whole-warp twin of 80x1
    EXPECT_NE(sweep[i].threads() % 32, 0u) << sweep[i].label();
  }
  EXPECT_NE(std::find(sweep.begin(), sweep.end(), BlockShape{80, 1}), sweep.end());
}

TEST(WarpModel, RecordsThatFollowTheRuleGroupBackIntoItsWarps) {
  for (BlockShape b : {BlockShape{80, 1}, BlockShape{40, 2}, BlockShape{16, 5}, BlockShape{7, 3}, BlockShape{1024, 1}}) {
    const auto records = rule_records(b, 2, b.x * 31 + b.y);
    for (uint32_t blk : {0u, 1u}) {
      const auto measured = lab::measured_warps(records, blk, b);
      EXPECT_EQ(lab::compare_warps(lab::model_warps(b), measured, b), "ok") << b.label();
    }
  }
}

TEST(WarpModel, ContradictoryRecordsAreCaught) {
  const BlockShape b{40, 2};
  auto records = rule_records(b, 1, 3);
  auto missing = records;
  missing.pop_back();
  EXPECT_THROW(lab::measured_warps(missing, 0, b), std::runtime_error);
  auto bad_lane = records;
  bad_lane[5].lane = (bad_lane[5].lane + 1) % 32;
  EXPECT_THROW(lab::measured_warps(bad_lane, 0, b), std::runtime_error);
  auto bad_mask = records;
  for (auto& r : bad_mask) {
    if (r.y * b.x + r.x >= 64) r.mask = 0xffffffffu;  // the partial warp claiming every lane
  }
  EXPECT_THROW(lab::measured_warps(bad_mask, 0, b), std::runtime_error);
  // A warp split differently from the rule (threads 0..15 and 16..47 as warps) is a WRONG check.
  std::vector<WarpSlice> shifted{{0, 15, 0xffffu}, {16, 47, 0xffffffffu}, {48, 79, 0xffffffffu}};
  const std::string check = lab::compare_warps(lab::model_warps(b), shifted, b);
  EXPECT_EQ(check.rfind("WRONG at warp 0", 0), 0u) << check;
}
