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
