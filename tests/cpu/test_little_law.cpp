// Little's law, theoretical bandwidth and occupancy: the book's worked examples (seed 004, 3.2.2)
// come out of the same functions `warpfold info` applies to the device.
#include "harness/device_info.hpp"
#include "harness/device_limits.hpp"
#include "lab/device_query/info_run.hpp"
#include "lab/device_query/little_law.hpp"
#include "lab/device_query/occupancy.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace warpfold;

TEST(LittleLaw, ArithmeticMatchesTheBooksTable) {
  const auto fermi = lab::arithmetic_parallelism(20, 32, 32);
  EXPECT_DOUBLE_EQ(fermi.ops_in_flight_per_sm, 640);
  EXPECT_DOUBLE_EQ(fermi.warps_per_sm, 20);
  const auto kepler = lab::arithmetic_parallelism(20, 192, 32);
  EXPECT_DOUBLE_EQ(kepler.ops_in_flight_per_sm, 3840);
  EXPECT_DOUBLE_EQ(kepler.warps_per_sm, 120);
}

TEST(LittleLaw, MemoryMatchesTheBooksFermiExample) {
  // 144 GB/s at a 1566 MHz memory clock: 92 B/cycle, 74 KB in flight, 18,500 threads, 579 warps,
  // 36 warps per SM on 16 SMs (the book rounds 73.6 KB up to 74 KB before dividing).
  const auto p = lab::memory_parallelism(800, 144, 1566, 4, 32, 16);
  EXPECT_NEAR(p.bytes_per_cycle, 92, 0.1);
  EXPECT_NEAR(p.bytes_in_flight / 1000, 74, 0.5);
  EXPECT_NEAR(p.threads, 18500, 150);
  EXPECT_NEAR(p.warps, 579, 5);
  EXPECT_EQ(std::lround(p.warps_per_sm), 36);
}

TEST(LittleLaw, MemoryMatchesTheBooksKeplerRow) {
  const auto p = lab::memory_parallelism(800, 250, 2600, 4, 32, 15);
  EXPECT_NEAR(p.bytes_per_cycle, 96, 0.2);
  EXPECT_NEAR(p.bytes_in_flight / 1000, 77, 0.5);
}

TEST(LittleLaw, DegenerateInputsGiveZerosNotInfinities) {
  const auto p = lab::memory_parallelism(800, 144, 0, 4, 32, 16);
  EXPECT_EQ(p.bytes_per_cycle, 0);
  EXPECT_EQ(p.warps_per_sm, 0);
  EXPECT_EQ(lab::memory_parallelism(800, 144, 1566, 4, 32, 0).warps, 0);
  EXPECT_EQ(lab::arithmetic_parallelism(20, 32, 0).warps_per_sm, 0);
}

TEST(LittleLaw, Fp32ThroughputByComputeCapability) {
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(2, 0), 32);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(3, 5), 192);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(6, 0), 64);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(7, 0), 64);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(8, 0), 64);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(8, 6), 128);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(9, 0), 128);
  EXPECT_EQ(lab::fp32_ops_per_cycle_per_sm(1, 3), 0);
}

TEST(LittleLaw, TableHoldsTheBookRowsWithoutADeviceAndAddsTheDevicesWithOne) {
  const lab::LatencyAssumptions book;
  const auto alone = lab::little_law_table(book, nullptr);
  ASSERT_EQ(alone.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(alone.rows[0][4].get<double>(), 640);
  EXPECT_DOUBLE_EQ(alone.rows[1][6].get<double>(), 120);

  lab::DeviceFacts h100;  // H100 SXM
  h100.summary.cc_major = 9;
  h100.summary.sm_count = 132;
  h100.summary.mem_clock_khz = 2619000;
  h100.summary.mem_bus_width_bits = 5120;
  h100.limits.max_threads_per_sm = 2048;
  h100.measured_gbps = 3000;
  const auto with = lab::little_law_table(book, &h100);
  ASSERT_EQ(with.rows.size(), 7u);
  EXPECT_DOUBLE_EQ(with.rows[4][2].get<double>(), 128);  // FP32 ops per cycle per SM
  EXPECT_NEAR(with.rows[5][2].get<double>(), 1280, 0.01);  // HBM: 2 × 5120 / 8 bytes per memory clock
  h100.summary.cc_major = 42;
  EXPECT_EQ(lab::little_law_table(book, &h100).rows.size(), 6u);  // unknown FP32 throughput: no arithmetic row
}

TEST(TheoreticalBandwidth, TwiceClockTimesBusWidth) {
  // Tesla M2070 (the book's device): 1566 MHz, 384-bit GDDR5.
  EXPECT_NEAR(harness::theoretical_bandwidth_gbps(1566000, 384), 150.336, 1e-6);
  // H100 SXM: 2619 MHz, 5120-bit HBM3.
  EXPECT_NEAR(harness::theoretical_bandwidth_gbps(2619000, 5120), 3352.32, 1e-6);
  EXPECT_EQ(harness::theoretical_bandwidth_gbps(0, 384), 0);
}

TEST(Occupancy, ActiveWarpsOverMaxWarps) {
  harness::DeviceLimits l;
  l.warp_size = 32;
  l.max_threads_per_sm = 2048;  // 64 warps
  EXPECT_DOUBLE_EQ(lab::theoretical_occupancy(2, 1024, l), 1.0);
  EXPECT_DOUBLE_EQ(lab::theoretical_occupancy(16, 64, l), 0.5);
  EXPECT_DOUBLE_EQ(lab::theoretical_occupancy(1, 48, l), 2.0 / 64);  // a partial warp takes a whole slot
  EXPECT_DOUBLE_EQ(lab::theoretical_occupancy(0, 1024, l), 0.0);
  EXPECT_DOUBLE_EQ(lab::theoretical_occupancy(4, 256, harness::DeviceLimits{}), 0.0);  // limits unknown
}
