// Reading Nsight Compute's CSV: records, both page layouts, numbers and units.
#include "cpu/profile_test_data.hpp"
#include "profile/csv_records.hpp"
#include "profile/metric_units.hpp"
#include "profile/ncu_csv.hpp"

#include <gtest/gtest.h>

using namespace warpfold::profile;
using warpfold::testing::read_test_data;

TEST(CsvRecords, QuotedFieldsKeepCommasQuotesAndLineBreaks) {
  const auto r = csv_records("program output, not csv\n\"a\",\"1,234.5\",\"say \"\"hi\"\"\"\r\n==PROF== done\n\"two\nlines\",x\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (CsvRecord{"a", "1,234.5", "say \"hi\""}));
  EXPECT_EQ(r[1], (CsvRecord{"two\nlines", "x"}));
}

TEST(CsvRecords, EmptyFieldsAndNoFinalNewline) {
  const auto r = csv_records("\"\",\"\",\"z\"");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (CsvRecord{"", "", "z"}));
}

// The captures under tests/data/ncu are ncu 2025.3.1's real output on an H200 (see its README).
TEST(NcuCsv, LadderCaptureGivesEveryKernelInIdOrder) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/ladder_details_sample.csv"));
  ASSERT_EQ(kernels.size(), 22u);
  for (size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(kernels[i].id, long(i));
    EXPECT_EQ(kernels[i].metrics.size(), 9u) << kernels[i].name;
  }
  EXPECT_EQ(kernels[6].name, "book::reduceInterleaved(int *, int *, unsigned int)");
  EXPECT_EQ(kernels[6].block, "(512, 1, 1)");
  EXPECT_EQ(kernels[6].grid, "(32768, 1, 1)");
  EXPECT_EQ(kernels[15].name, "void fixed::reduceUnrollWarps<8>(int *, int *, unsigned long long)");
  EXPECT_EQ(kernels[15].grid, "(4096, 1, 1)");
  const NcuValue& dram = kernels[12].metrics.at("dram__bytes_read.sum.per_second");  // reduceUnrolling8 (book)
  EXPECT_EQ(dram.unit, "byte/s");
  EXPECT_EQ(dram.text, "2759663157894.74");
  const NcuValue& t = kernels[12].metrics.at("gpu__time_duration.sum");
  EXPECT_EQ(t.unit, "ns");
  EXPECT_EQ(t.text, "24320");
  EXPECT_EQ(kernels[4].metrics.at("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct").text, "25.02");
  EXPECT_EQ(kernels[6].metrics.at("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct").text, "96.15");
  EXPECT_EQ(kernels[14].metrics.at("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio").unit, "inst");
}

TEST(NcuCsv, DivergenceCaptureHoldsBothBuilds) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/divergence_details.csv"));
  ASSERT_EQ(kernels.size(), 16u);
  EXPECT_EQ(kernels[1].name, "optimised::mathKernel1(float *)");
  EXPECT_EQ(kernels[6].name, "void optimised::maskKernel<1>(float *)");
  EXPECT_EQ(kernels[14].name, "void device_debug::maskKernel<1>(float *)");
  EXPECT_EQ(kernels[1].block, "(64, 1, 1)");
  EXPECT_EQ(kernels[1].grid, "(160000, 1, 1)");
  const char* branch = "smsp__sass_average_branch_targets_threads_uniform.pct";
  EXPECT_EQ(kernels[1].metrics.at(branch).text, "0");    // -O3: a select, no branch executed
  EXPECT_EQ(kernels[9].metrics.at(branch).text, "80");   // -G: the branch is kept and diverges
  EXPECT_EQ(kernels[14].metrics.at("smsp__average_inst_executed_per_warp.ratio").text, "20225.00");
}

TEST(NcuCsv, NestedCaptureHasOneKernelPerHostLaunch) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/nested_details.csv"));
  ASSERT_EQ(kernels.size(), 4u);  // the device-launched child grids are not reported on their own
  EXPECT_EQ(kernels[0].name, "fixed::reduceNeighbored(int *, int *, unsigned long long)");
  EXPECT_EQ(kernels[1].name, "nested::gpuRecursiveReduce(int *, int *, unsigned int, NestedLaunchRecord *)");
  EXPECT_EQ(kernels[3].name, "nested::gpuRecursiveReduce2(int *, int *, int, int, NestedLaunchRecord *)");
  EXPECT_EQ(kernels[3].block, "(256, 1, 1)");
  EXPECT_EQ(kernels[1].metrics.at("gpu__time_duration.sum").text, "16336672");
}

TEST(NcuCsv, RawPageSampleReadsTheUnitsRecord) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/raw_page_sample.csv"));
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "warpfold::lab::divergence::optimised::mathKernel1(float *)");
  EXPECT_EQ(kernels[0].metrics.count("Kernel Name"), 0u);  // launch columns are not metrics
  const NcuValue& t = kernels[0].metrics.at("gpu__time_duration.sum");
  EXPECT_EQ(t.unit, "nsecond");
  EXPECT_EQ(t.text, "21,344");
  EXPECT_EQ(kernels[0].metrics.at("smsp__average_inst_executed_per_warp.ratio").text, "n/a");
  EXPECT_EQ(kernels[1].metrics.at("dram__bytes_read.sum.per_second").unit, "Mbyte/second");
}

TEST(NcuCsv, ColumnsAreFoundByNameInAnyOrder) {
  const auto kernels = parse_ncu_csv(
      "\"Metric Value\",\"Kernel Name\",\"Metric Unit\",\"ID\",\"Metric Name\"\n"
      "\"7\",\"k2\",\"%\",\"1\",\"m\"\n"
      "\"3\",\"k1\",\"%\",\"0\",\"m\"\n");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "k1");
  EXPECT_EQ(kernels[0].metrics.at("m").text, "3");
  EXPECT_EQ(kernels[1].metrics.at("m").text, "7");
}

TEST(NcuCsv, NoTableMeansNoKernels) {
  EXPECT_TRUE(parse_ncu_csv(read_test_data("ncu/err_nvgpuctrperm.txt")).empty());
  EXPECT_TRUE(parse_ncu_csv("").empty());
  EXPECT_TRUE(parse_ncu_csv("\"a\",\"b\"\n\"1\",\"2\"\n").empty());  // a CSV, but not ncu's
}

TEST(MetricUnits, NumbersWithThousandsSeparators) {
  EXPECT_DOUBLE_EQ(*parse_metric_number("1,234.5"), 1234.5);
  EXPECT_DOUBLE_EQ(*parse_metric_number("53,261,312"), 53261312);
  EXPECT_DOUBLE_EQ(*parse_metric_number(" 0.871 "), 0.871);
  EXPECT_DOUBLE_EQ(*parse_metric_number("4.0e-05"), 4e-5);
  EXPECT_FALSE(parse_metric_number("n/a"));
  EXPECT_FALSE(parse_metric_number("N/A"));
  EXPECT_FALSE(parse_metric_number(""));
  EXPECT_FALSE(parse_metric_number("12 GB"));
}

TEST(MetricUnits, ThroughputsInGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(1.5, "Tbyte/second"), 1500);
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(722.4, "Gbyte/second"), 722.4);
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(1204.33, "Mbyte/second"), 1.20433);
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(5e3, "Kbyte/second"), 0.005);
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(2e9, "byte/second"), 2);
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(2759663157894.74, "byte/s"), 2759.66315789474);  // ncu 2025.3.1
  EXPECT_DOUBLE_EQ(*to_gigabytes_per_second(3, "GB/s"), 3);
  EXPECT_FALSE(to_gigabytes_per_second(1, "%"));
  EXPECT_FALSE(to_gigabytes_per_second(1, "byte"));
  EXPECT_FALSE(to_gigabytes_per_second(1, "Xbyte/second"));
}

TEST(MetricUnits, DurationsInMilliseconds) {
  EXPECT_DOUBLE_EQ(*to_milliseconds(21344, "nsecond"), 0.021344);
  EXPECT_DOUBLE_EQ(*to_milliseconds(24320, "ns"), 0.02432);  // ncu 2025.3.1
  EXPECT_DOUBLE_EQ(*to_milliseconds(64.93, "usecond"), 0.06493);
  EXPECT_DOUBLE_EQ(*to_milliseconds(1.5, "msecond"), 1.5);
  EXPECT_DOUBLE_EQ(*to_milliseconds(4e-5, "second"), 0.04);
  EXPECT_FALSE(to_milliseconds(1, "cycle"));
}
