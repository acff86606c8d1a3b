// The ladder's CPU reference, its --block-sweep/--block rule and its host-memory check.
#include "cli/ladder_command.hpp"
#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "harness/host_memory.hpp"
#include "lab/ladder/ladder_run.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace warpfold;

TEST(LadderReference, ExactAtTheExtremesOfInt32) {
  const std::vector<int> highs(1000, INT_MAX), lows(1000, INT_MIN);
  EXPECT_EQ(lab::reference_sum(highs.data(), highs.size()), int64_t(1000) * INT_MAX);
  EXPECT_EQ(lab::reference_sum(lows.data(), lows.size()), int64_t(1000) * INT_MIN);
  const std::vector<int> mixed{INT_MAX, INT_MIN, -1, 7, INT_MAX};
  EXPECT_EQ(lab::reference_sum(mixed.data(), mixed.size()), int64_t(INT_MAX) + INT_MAX + INT_MIN + 6);
  EXPECT_EQ(lab::reference_sum(mixed.data(), 0), 0);
}

// The serial row is checked against a reference computed elsewhere (a check against serial_sum
// itself could not fail), so a disagreement shows.
TEST(LadderCpuRows, SerialRowFailsWhenTheReferenceDisagrees) {
  const std::vector<int> data = harness::random_ints(4097, 7);
  const int64_t exact = lab::reference_sum(data.data(), data.size());

  const auto right = lab::ladder_cpu_rows(data, harness::int_reference(exact), 1);
  EXPECT_FALSE(right.failed);
  ASSERT_EQ(right.rows.size(), 2u);
  EXPECT_EQ(right.rows[1][0], "serial sum (cpu)");
  EXPECT_EQ(right.rows[1][10], "ok");

  const auto wrong = lab::ladder_cpu_rows(data, harness::int_reference(exact + 1), 1);
  EXPECT_TRUE(wrong.failed);
  EXPECT_EQ(wrong.rows[1][10], "WRONG expected " + std::to_string(exact + 1) + " got " + std::to_string(exact));
}

TEST(LadderRun, ReferenceIsTheExactSumOfTheSeededData) {
  lab::LadderOptions o;
  o.n = 3000;
  o.block = 64;
  o.reps = 1;
  o.seed = 11;
  const auto out = lab::run_ladder(o);
  const std::vector<int> data = harness::random_ints(o.n, 11);
  int64_t sum = 0;
  for (int v : data) sum += v;
  EXPECT_EQ(out.report.meta["exact_sum"], sum);
  EXPECT_FALSE(out.check_failed);
}

TEST(LadderCli, BlockSweepRefusesABlock) {
  const std::string err = warpfold::testing::parse_lesson_error("ladder", {"--block-sweep", "--block", "64"});
  EXPECT_NE(err.find("--block"), std::string::npos) << err;
  EXPECT_NE(err.find("excludes"), std::string::npos) << err;
  EXPECT_TRUE(warpfold::testing::parse_lesson_error("ladder", {"--block-sweep"}).empty());
}

TEST(LadderRun, BlockSweepHeaderNamesTheSweptBlocks) {
  lab::LadderOptions o;
  o.n = 1000;
  o.reps = 1;
  o.block_sweep = true;
  const auto out = lab::run_ladder(o);
  ASSERT_FALSE(out.report.preamble.empty());
  const std::string& header = out.report.preamble.front();
  EXPECT_NE(header.find("blocks 64, 128, 256, 512, 1024 (sweep)"), std::string::npos) << header;
  EXPECT_EQ(header.find("block 512"), std::string::npos) << header;
  EXPECT_FALSE(out.report.meta.contains("block"));
}

TEST(LadderHostMemory, SizeIsTheInputAndOneCopy) {
  EXPECT_EQ(lab::ladder_host_bytes(uint64_t(1) << 30) >> 20, uint64_t(8) << 10);  // 8 GiB, plus padding
  EXPECT_GE(lab::ladder_host_bytes(1000), 2 * 1000 * sizeof(int));
}

TEST(LadderHostMemory, MoreThanAnyMachineHasIsASentence) {
  try {
    harness::require_host_memory(uint64_t(1) << 62, "the test");
    ADD_FAILURE() << "2^62 bytes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the test needs about"), std::string::npos) << e.what();
  }
}

namespace {

// Runs the ladder at n = 2^30 under an address-space limit 1 GiB above what the process holds;
// exits 0 after printing an invalid_argument's message, 1 after any other exception's, 2 if it ran.
[[noreturn]] void ladder_under_address_space_limit() {
  std::ifstream statm("/proc/self/statm");
  unsigned long long pages = 0;
  statm >> pages;
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max = pages * ::sysconf(_SC_PAGESIZE) + (rlim_t(1) << 30);
  if (::setrlimit(RLIMIT_AS, &lim) != 0) std::exit(3);
  lab::LadderOptions o;
  o.n = uint64_t(1) << 30;
  try {
    lab::run_ladder(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(1);
  }
  std::exit(2);
}

}  // namespace

// `ulimit -v 3000000; warpfold ladder --n 2^30` printed std::bad_alloc: the ladder must refuse
// with the size instead.
TEST(LadderHostMemoryDeathTest, AddressSpaceLimitIsASentenceNotBadAlloc) {
  EXPECT_EXIT(ladder_under_address_space_limit(), ::testing::ExitedWithCode(0),
              "n = 1073741824 needs about 8\\.00 GiB of host memory; .*ulimit -v");
}
