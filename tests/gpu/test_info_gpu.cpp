// `warpfold info` on a device: the query's facts, the Little's-law rows for this device and the
// occupancy of every lab kernel.
#include "gpu/gpu_test_support.hpp"

#include "harness/device_limits.hpp"
#include "lab/device_query/info_run.hpp"
#include "lab/device_query/kernel_catalog.hpp"
#include "lab/device_query/occupancy.hpp"
#include "lab/grid_shape/sum_matrix_launch.hpp"

#include <algorithm>

using namespace warpfold;

namespace {

TEST(InfoRunGpu, ReportsTheDeviceLatencyHidingAndOccupancy) {
  WARPFOLD_REQUIRE_GPU();
  const auto out = lab::run_info({});
  ASSERT_TRUE(out.gpu_ran);
  ASSERT_EQ(out.report.tables.size(), 3u);

  const auto& q = out.report.meta.at("device_query");
  EXPECT_GT(q.at("sm_count").get<int>(), 0);
  EXPECT_EQ(q.at("warp_size").get<int>(), 32);
  EXPECT_GE(q.at("max_threads_per_block").get<int>(), 1024);
  EXPECT_EQ(q.at("max_warps_per_sm").get<int>(), q.at("max_threads_per_sm").get<int>() / 32);
  EXPECT_GT(q.at("constant_memory_kib").get<double>(), 0);
  EXPECT_GT(q.at("registers_per_block").get<int>(), 0);
  EXPECT_GT(q.at("theoretical_gbps").get<double>(), 0);
  EXPECT_GT(q.at("measured_read_gbps").get<double>(), 0);
  EXPECT_GT(q.at("l2_mib").get<double>(), 0);

  const auto& law = out.report.tables[1];
  ASSERT_GE(law.rows.size(), 6u);  // the book's 4, this device's memory rows, and FP32 where known
  for (size_t i = 4; i < law.rows.size(); ++i) EXPECT_GT(law.rows[i][6].get<double>(), 0) << law.rows[i][0];

  const auto& occ = out.report.tables[2];
  ASSERT_EQ(occ.rows.size(), lab::lab_kernels().size());
  for (const auto& row : occ.rows) {
    EXPECT_GT(row[2].get<int>(), 0) << row[0];  // registers per thread
    for (size_t c = 6; c + 1 < row.size(); ++c) {
      if (row[c].is_null()) continue;  // more threads than the kernel can launch with
      EXPECT_GT(row[c].get<double>(), 0) << row[0] << " column " << c;
      EXPECT_LE(row[c].get<double>(), 100.0) << row[0] << " column " << c;
    }
    EXPECT_TRUE(row[6 + 3].is_number()) << row[0];  // every kernel launches with 256 threads
    EXPECT_FALSE(row.back().get<std::string>().empty()) << row[0];  // limited by
  }
}

TEST(OccupancyGpu, AgreesWithTheCalculatorsBlockCount) {
  WARPFOLD_REQUIRE_GPU();
  const auto limits = harness::query_device_limits(0);
  for (int threads : {32, 128, 256, 1024}) {
    const auto occ = lab::occupancy_at(lab::sum_matrix_function(), threads, limits);
    ASSERT_TRUE(occ.has_value()) << threads;
    EXPECT_GT(occ->blocks_per_sm, 0);
    EXPECT_LE(occ->blocks_per_sm, limits.max_blocks_per_sm);
    EXPECT_DOUBLE_EQ(occ->fraction, lab::theoretical_occupancy(occ->blocks_per_sm, threads, limits));
    EXPECT_LE(occ->fraction, 1.0);
  }
  EXPECT_FALSE(lab::occupancy_at(lab::sum_matrix_function(), 2048, limits).has_value());
}

// The host calculator behind "limited by" holds the same blocks per SM as the runtime, for every lab kernel.
TEST(OccupancyGpu, HostCalculatorMatchesTheRuntime) {
  WARPFOLD_REQUIRE_GPU();
  const auto limits = harness::query_device_limits(0);
  const cudaOccDeviceProp device = lab::occupancy_device(0);
  for (const auto& k : lab::lab_kernels()) {
    const auto res = lab::kernel_resources(k.function);
    for (int threads : {32, 96, 256, 1024}) {
      const auto occ = lab::occupancy_at(k.function, threads, limits);
      if (!occ) continue;
      const auto bounds = lab::block_limits(device, res, threads);
      ASSERT_TRUE(bounds.has_value()) << k.name;
      const int least = std::min({bounds->by_registers, bounds->by_shared_memory, bounds->by_block_slots,
                                  bounds->by_warps});
      EXPECT_EQ(least, occ->blocks_per_sm) << k.name << " @" << threads;
      EXPECT_FALSE(lab::limited_by_text(*bounds).empty()) << k.name;
    }
  }
}

}  // namespace
