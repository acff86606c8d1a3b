// Pairing the profiled launches with ncu's kernels, and the table they make.
#include "cpu/profile_test_data.hpp"
#include "profile/book_metrics.hpp"
#include "profile/kernel_names.hpp"
#include "profile/ncu_run.hpp"
#include "profile/profile_table.hpp"

#include <gtest/gtest.h>

using namespace warpfold::profile;
using warpfold::testing::read_test_data;
using warpfold::testing::test_data_path;

namespace {

size_t col(const warpfold::report::Table& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].key == key) return i;
  }
  ADD_FAILURE() << "no column " << key;
  return 0;
}

bool any_note_has(const warpfold::report::Table& t, const std::string& text) {
  for (const auto& n : t.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

NcuKernel kernel(long id, std::string name, std::map<std::string, NcuValue> metrics = {}) {
  NcuKernel k;
  k.id = id;
  k.name = std::move(name);
  k.metrics = std::move(metrics);
  return k;
}

}  // namespace

TEST(KernelNames, EveryFormNcuAndCuobjdumpPrint) {
  EXPECT_EQ(qualified_name("void warpfold::lab::fixed::reduceUnrolling<8u>(int *, int *, unsigned long long)"),
            "warpfold::lab::fixed::reduceUnrolling<8u>");
  EXPECT_EQ(base_identifier("void warpfold::lab::fixed::reduceUnrolling<8u>(int *, int *, unsigned long long)"),
            "reduceUnrolling");
  EXPECT_EQ(base_identifier("warpfold::lab::book::reduceInterleaved(int *, int *, unsigned int)"), "reduceInterleaved");
  EXPECT_EQ(base_identifier("reduceInterleaved"), "reduceInterleaved");
  // Kernels in unnamed namespaces: the scope's '(' and space belong to the name.
  EXPECT_EQ(qualified_name("void warpfold::harness::(anonymous namespace)::stream_read<4u>(uint4 const*, int)"),
            "warpfold::harness::(anonymous namespace)::stream_read<4u>");
  EXPECT_EQ(base_identifier("warpfold::harness::(anonymous namespace)::stream_read(uint4 const*, unsigned long)"),
            "stream_read");
  EXPECT_EQ(base_identifier("maskKernel<0x01>"), "maskKernel");
  EXPECT_EQ(without_unsigned_suffixes("reduceCompleteUnroll<512u>"), "reduceCompleteUnroll<512>");
  EXPECT_EQ(*demangle("_ZN8warpfold3lab4book17reduceInterleavedEPiS2_j"),
            "warpfold::lab::book::reduceInterleaved(int*, int*, unsigned int)");
  EXPECT_FALSE(demangle("__cudaCDP2GetLastError"));
}

TEST(KernelNames, RegistryNamesAgreeWithReportedNames) {
  EXPECT_TRUE(names_same_kernel("void warpfold::lab::fixed::reduceUnrolling<8u>(int *, int *, unsigned long long)",
                                "reduceUnrolling8"));
  EXPECT_TRUE(names_same_kernel("void warpfold::lab::fixed::reduceUnrollWarps<2u>(int *, int *, unsigned long long)",
                                "reduceUnrollWarps"));
  EXPECT_TRUE(names_same_kernel("warpfold::lab::divergence::optimised::mathKernel4_fixed(float *)", "mathKernel4_fixed"));
  EXPECT_TRUE(names_same_kernel("void warpfold::lab::divergence::device_debug::maskKernel<1>(float *)", "maskKernel<0x01>"));
  EXPECT_TRUE(names_same_kernel("reduceInterleaved", "reduceInterleaved"));  // ncu's bare function name
  EXPECT_FALSE(names_same_kernel("warpfold::lab::book::reduceNeighboredLess(int *, int *, unsigned int)",
                                 "reduceNeighbored"));
  EXPECT_FALSE(names_same_kernel("mathKernel1(float *)", "mathKernel2"));
  EXPECT_FALSE(names_same_kernel("", "reduceInterleaved"));
}

// The ncu outputs below are real captures from an H200 (tests/data/ncu/README.md); the expected
// values are the ones ncu printed, as docs/profile.md shows them.
TEST(ProfileTable, LadderCaptureFillsEveryRowWithTheBookUnits) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/ladder_details_sample.csv"));
  const auto launches = LaunchManifest::read(test_data_path("ncu/ladder_launches.tsv")).launches();
  TimedRows timed{{"reduceInterleaved (book)", {0.0966, "ok"}}, {"reduceUnrolling8 (book)", {0.0261, "ok"}}};
  const auto t = profile_table("ladder", launches, kernels, timed);
  ASSERT_EQ(t.rows.size(), 22u);
  for (const auto& row : t.rows) {
    for (const BookMetric& m : book_metrics()) {
      EXPECT_TRUE(row[col(t, std::string(m.key))].is_number()) << row[0] << " " << m.book;
    }
  }
  const auto& less = t.rows[4];
  EXPECT_EQ(less[0], "reduceNeighboredLess (book)");
  EXPECT_DOUBLE_EQ(less[col(t, "gld_efficiency_pct")].get<double>(), 25.02);  // strided: a sector per lane
  EXPECT_NEAR(less[col(t, "gld_throughput_gbps")].get<double>(), 3932.5, 0.05);
  const auto& interleaved = t.rows[6];
  EXPECT_EQ(interleaved[0], "reduceInterleaved (book)");
  EXPECT_DOUBLE_EQ(interleaved[col(t, "time_ms")].get<double>(), 0.0966);
  EXPECT_EQ(interleaved[col(t, "check")], "ok");
  EXPECT_DOUBLE_EQ(interleaved[col(t, "gld_efficiency_pct")].get<double>(), 96.15);  // coalesced
  EXPECT_NEAR(interleaved[col(t, "gld_throughput_gbps")].get<double>(), 1238.109, 0.001);  // printed in byte/s
  EXPECT_DOUBLE_EQ(interleaved[col(t, "ncu_ms")].get<double>(), 0.11264);                  // printed in ns
  const auto& unrolling8 = t.rows[12];
  EXPECT_NEAR(unrolling8[col(t, "dram_read_gbps")].get<double>(), 2759.663, 0.001);
  EXPECT_DOUBLE_EQ(unrolling8[col(t, "stall_sync")].get<double>(), 7.47);
  const auto& warps8_book = t.rows[14];
  const auto& warps8_fixed = t.rows[15];
  EXPECT_EQ(warps8_book[0], "reduceUnrollWarps8 (book)");
  EXPECT_EQ(warps8_fixed[0], "reduceUnrollWarps8 (fixed)");  // paired with fixed::reduceUnrollWarps<8>
  EXPECT_DOUBLE_EQ(warps8_book[col(t, "achieved_occupancy_pct")].get<double>(), 60.51);
  EXPECT_DOUBLE_EQ(warps8_fixed[col(t, "achieved_occupancy_pct")].get<double>(), 84.79);
  EXPECT_TRUE(t.rows[0][col(t, "time_ms")].is_null());  // no timed row of that label
  EXPECT_TRUE(any_note_has(t, "gld_efficiency = smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"));
  EXPECT_FALSE(any_note_has(t, "ncu also profiled"));
}

TEST(ProfileTable, DivergenceCapturePairsEachBuildInLaunchOrder) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/divergence_details.csv"));
  const auto launches = LaunchManifest::read(test_data_path("ncu/divergence_launches.tsv")).launches();
  const auto t = profile_table("divergence", launches, kernels, {});
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(t.rows[1][0], "mathKernel1 (-O3)");
  EXPECT_DOUBLE_EQ(t.rows[1][col(t, "inst_per_warp")].get<double>(), 14);
  EXPECT_DOUBLE_EQ(t.rows[2][col(t, "inst_per_warp")].get<double>(), 32);  // mathKernel2: tid / warpSize
  EXPECT_EQ(t.rows[5][0], "mathKernel4 (fixed) (-O3)");                   // mathKernel4_fixed, not mathKernel4
  EXPECT_DOUBLE_EQ(t.rows[5][col(t, "inst_per_warp")].get<double>(), 13);
  EXPECT_EQ(t.rows[9][0], "mathKernel1 (-G)");
  EXPECT_DOUBLE_EQ(t.rows[9][col(t, "branch_efficiency_pct")].get<double>(), 80);
  EXPECT_DOUBLE_EQ(t.rows[11][col(t, "branch_efficiency_pct")].get<double>(), 71.43);  // mathKernel3 (-G)
  EXPECT_EQ(t.rows[14][0], "maskKernel<0x01> (lab) (-G)");
  EXPECT_DOUBLE_EQ(t.rows[14][col(t, "inst_per_warp")].get<double>(), 20225);
  EXPECT_DOUBLE_EQ(t.rows[15][col(t, "inst_per_warp")].get<double>(), 10146.5);
  EXPECT_FALSE(any_note_has(t, "ncu also profiled"));
  EXPECT_FALSE(any_note_has(t, "is not in ncu's results"));
}

TEST(ProfileTable, NestedCaptureTimesTheWholeLaunchTree) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/nested_details.csv"));
  const auto launches = LaunchManifest::read(test_data_path("ncu/nested_launches.tsv")).launches();
  const auto t = profile_table("nested", launches, kernels, {{"nested", {11.3716, "ok"}}});
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[1][0], "nested");
  EXPECT_DOUBLE_EQ(t.rows[1][col(t, "time_ms")].get<double>(), 11.3716);
  EXPECT_DOUBLE_EQ(t.rows[1][col(t, "ncu_ms")].get<double>(), 16.336672);  // the parent grid with all its children
  EXPECT_DOUBLE_EQ(t.rows[1][col(t, "achieved_occupancy_pct")].get<double>(), 1.85);
  EXPECT_DOUBLE_EQ(t.rows[3][col(t, "stall_sync")].get<double>(), 0);  // gpuRecursiveReduce2 has no barrier
  EXPECT_DOUBLE_EQ(t.rows[0][col(t, "gld_efficiency_pct")].get<double>(), 25.02);  // neighbored
  EXPECT_FALSE(any_note_has(t, "ncu also profiled"));
}

TEST(ProfileTable, KernelsOutsideTheManifestAreSkippedAndNamed) {
  const std::vector<ProfiledLaunch> launches{{"a (book)", "reduceInterleaved"}, {"b (book)", "reduceUnrolling8"}};
  const std::vector<NcuKernel> kernels{kernel(0, "stream_read(int4 const *, unsigned long, int *)"),
                                       kernel(1, "reduceInterleaved(int *, int *, unsigned int)"),
                                       kernel(2, "reduceUnrolling8(int *, int *, unsigned int)"),
                                       kernel(3, "reduceUnrolling8(int *, int *, unsigned int)"),
                                       kernel(4, "child(int *)"),
                                       kernel(5, "child(int *)"),
                                       kernel(6, "child(int *)")};
  const auto t = profile_table("x", launches, kernels, {});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_TRUE(any_note_has(t, "ncu also profiled stream_read(int4 const *, unsigned long, int *) (ID 0)"));
  EXPECT_TRUE(any_note_has(t, "(ID 3)"));
  EXPECT_FALSE(any_note_has(t, "(ID 1)"));
  EXPECT_TRUE(any_note_has(t, "ncu also profiled child(int *) 3 times (IDs from 4)"));  // one note, not three
}

TEST(ProfileTable, ALaunchNcuDidNotProfileKeepsItsRowEmpty) {
  const std::vector<ProfiledLaunch> launches{{"nested", "gpuRecursiveReduce"}, {"nested2", "gpuRecursiveReduce2"}};
  const std::vector<NcuKernel> kernels{kernel(0, "warpfold::lab::nested::gpuRecursiveReduce2(int *, int *, int, int, "
                                                 "warpfold::lab::NestedLaunchRecord *)",
                                              {{"smsp__average_inst_executed_per_warp.ratio", {"inst/warp", "12.5"}}})};
  const auto t = profile_table("nested", launches, kernels, {{"nested", {1.5, "ok"}}});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[0][col(t, "time_ms")].get<double>(), 1.5);
  EXPECT_TRUE(t.rows[0][col(t, "inst_per_warp")].is_null());
  EXPECT_EQ(t.rows[0][col(t, "check")], "ok");
  EXPECT_DOUBLE_EQ(t.rows[1][col(t, "inst_per_warp")].get<double>(), 12.5);
  EXPECT_TRUE(t.rows[1][col(t, "gld_efficiency_pct")].is_null());  // not in ncu's results: "-"
  EXPECT_TRUE(any_note_has(t, "nested: gpuRecursiveReduce is not in ncu's results"));
}

TEST(ProfileTable, AnUnknownUnitIsNamedNotGuessed) {
  const std::vector<ProfiledLaunch> launches{{"k", "k"}};
  const std::vector<NcuKernel> kernels{kernel(0, "k()", {{"dram__bytes_read.sum.per_second", {"furlong/fortnight", "3"}}})};
  const auto t = profile_table("x", launches, kernels, {});
  EXPECT_TRUE(t.rows[0][col(t, "dram_read_gbps")].is_null());
  EXPECT_TRUE(any_note_has(t, "unit 'furlong/fortnight'"));
}

TEST(BookMetrics, EveryBookMetricOfTheSeedsIsMapped) {
  std::string list = ncu_metric_list(false);
  for (const char* book : {"gld_efficiency", "gst_efficiency", "branch_efficiency", "inst_per_warp", "achieved_occupancy",
                           "dram_read_throughput", "gld_throughput", "stall_sync"}) {
    bool found = false;
    for (const BookMetric& m : book_metrics()) found |= m.book == book;
    EXPECT_TRUE(found) << book;
  }
  EXPECT_NE(list.find("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"), std::string::npos);
  EXPECT_EQ(list.find(' '), std::string::npos);
}

// The book's table names its n/a too, where it prints "-".
TEST(ProfileTable, NaInTheBooksTableIsNamed) {
  const auto kernels = parse_ncu_csv(read_test_data("ncu/raw_page_sample.csv"));
  const std::vector<ProfiledLaunch> launches{{"mathKernel1", "mathKernel1"}, {"mathKernel2", "mathKernel2"}};
  const auto t = profile_table("divergence", launches, kernels, {});
  EXPECT_TRUE(t.rows[0][col(t, "inst_per_warp")].is_null());
  EXPECT_TRUE(any_note_has(t, "ncu printed \"n/a\" for smsp__average_inst_executed_per_warp.ratio: mathKernel1"));
  EXPECT_TRUE(any_note_has(t, "ncu did not report smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct in 2 "
                              "rows: mathKernel1, mathKernel2"));
}
