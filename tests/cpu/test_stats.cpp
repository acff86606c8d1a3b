#include "harness/device_info.hpp"
#include "harness/stats.hpp"

#include <gtest/gtest.h>

using namespace warpfold::harness;

TEST(Summarize, OddCountTakesTheMiddle) {
  const auto s = summarize({5, 1, 3});
  EXPECT_DOUBLE_EQ(s.median_ms, 3);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 5);
  EXPECT_EQ(s.reps, 3);
  EXPECT_DOUBLE_EQ(s.spread(), 4.0 / 3.0);
}

TEST(Summarize, EvenCountAveragesTheTwoMiddles) {
  EXPECT_DOUBLE_EQ(summarize({4, 1, 2, 10}).median_ms, 3);
}

TEST(Summarize, EmptyIsAnError) { EXPECT_THROW(summarize({}), std::invalid_argument); }

// H100 SXM: 2619 MHz HBM3 on a 5120-bit bus → 3352 GB/s.
TEST(TheoreticalBandwidth, DoubleDataRateTimesBusWidth) {
  EXPECT_NEAR(theoretical_bandwidth_gbps(2619000, 5120), 3352.3, 0.1);
}

TEST(CudaVersion, FormatsMajorMinor) {
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
}

TEST(DriverRelease, ReadFromTheKernelModuleVersionText) {
  EXPECT_EQ(parse_driver_release("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct 14 2025\n"
                                 "GCC version:  gcc version 13.3.0\n"),
            "580.159.04");
  EXPECT_EQ(parse_driver_release("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build"),
            "570.86.15");
  EXPECT_EQ(parse_driver_release("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54\n"), "550.54");
  EXPECT_EQ(parse_driver_release(""), "");
  EXPECT_EQ(parse_driver_release("GCC version: gcc 13.3.0"), "");
}

// Per-round ratios: the median of a_i / b_i, and a bootstrap interval around it that holds it.
TEST(PerRoundRatio, MedianOfRoundRatiosWithAnIntervalAroundIt) {
  std::vector<double> a, b;
  for (int i = 0; i < 101; ++i) {
    b.push_back(10.0 + (i % 7));            // drifting machine state, shared by both runs
    a.push_back(b.back() * (1.0 + 0.001 * (i % 11 - 5)));  // a = b within ±0.5%
  }
  const RatioInterval r = per_round_ratio(a, b);
  EXPECT_NEAR(r.median, 1.0, 1e-12);
  EXPECT_LE(r.low, r.median);
  EXPECT_GE(r.high, r.median);
  EXPECT_GE(r.low, 0.995);
  EXPECT_LE(r.high, 1.005);
  EXPECT_TRUE(r.holds_one());
  EXPECT_TRUE(r.at_least_one(false));
  // The same samples give the same interval (a fixed seed).
  const RatioInterval again = per_round_ratio(a, b);
  EXPECT_EQ(again.low, r.low);
  EXPECT_EQ(again.high, r.high);
}

TEST(PerRoundRatio, TheStandardForAtLeastOne) {
  const RatioInterval slower{0.995, 0.992, 0.998};
  EXPECT_FALSE(slower.at_least_one(false));
  EXPECT_TRUE(slower.at_least_one(true));  // both at the memory limit, low end ≥ 0.99
  EXPECT_FALSE(slower.holds_one());
  EXPECT_FALSE((RatioInterval{0.98, 0.97, 0.985}).at_least_one(true));
  EXPECT_THROW(per_round_ratio({1.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(per_round_ratio({}, {}), std::invalid_argument);
}
