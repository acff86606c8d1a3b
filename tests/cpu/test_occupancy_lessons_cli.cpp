// `warpfold registers` and `warpfold warps`: their arguments, the errors a user gets for bad values,
// their runs without a device, and the register lesson's CPU reference.
#include "cli/registers_command.hpp"
#include "cli/warps_command.hpp"
#include "cpu/cli_test_support.hpp"
#include "lab/registers/register_kernels.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace warpfold;

TEST(RegistersCli, DefaultsAndBadValues) {
  auto p = warpfold::testing::parse_lesson<cli::RegistersCommandOptions>("registers", {});
  EXPECT_EQ(p->opts.lab.n, uint64_t(1) << 21);
  p = warpfold::testing::parse_lesson<cli::RegistersCommandOptions>("registers", {"--n", "2^10+3", "--reps", "4", "--seed", "9"});
  EXPECT_EQ(p->opts.lab.n, 1027u);
  EXPECT_EQ(p->opts.lab.reps, 4);
  EXPECT_EQ(p->opts.lab.seed, 9u);
  auto err = [](std::vector<std::string> args) { return warpfold::testing::parse_lesson_error("registers", std::move(args)); };
  EXPECT_NE(err({"--n", "0"}).find("--n"), std::string::npos);
  EXPECT_NE(err({"--n", "2^25"}).find("--n"), std::string::npos);
  EXPECT_NE(err({"--n", "lots"}).find("not a valid count"), std::string::npos);
  EXPECT_FALSE(err({"--reps", "0"}).empty());
  lab::RegistersOptions o;
  o.n = lab::kMaxRegisterThreads + 1;
  EXPECT_THROW(lab::validate_registers_options(o), std::invalid_argument);
}

TEST(RegistersLesson, VariantsAreDistinctAndNameTheBooksFlag) {
  std::set<std::string> labels;
  for (const auto& v : lab::registers::register_variants()) {
    EXPECT_TRUE(labels.insert(v.label()).second) << v.label();
    EXPECT_NE(v.function, nullptr) << v.label();
    if (v.limit.rfind("__maxnreg__(", 0) == 0) {
      EXPECT_EQ(v.book_flag, "-maxrregcount=" + v.limit.substr(12, v.limit.size() - 13)) << v.label();
    }
  }
  EXPECT_GE(labels.count("registerHeavy none"), 1u);
  EXPECT_GE(labels.count("sharedHeavy none"), 1u);
}

TEST(RegistersLesson, ReferenceFollowsEachThreadsOwnColumn) {
  // Thread t reads in[j * n + t]: swapping two threads' columns swaps their outputs, nothing else.
  const uint64_t n = 5;
  std::vector<uint32_t> in(n * lab::registers::kValues);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 2654435761u + 12345);
  const auto out = lab::registers_reference(in, n);
  auto swapped = in;
  for (int j = 0; j < lab::registers::kValues; ++j) std::swap(swapped[j * n + 1], swapped[j * n + 3]);
  const auto out2 = lab::registers_reference(swapped, n);
  EXPECT_EQ(out2[1], out[3]);
  EXPECT_EQ(out2[3], out[1]);
  EXPECT_EQ(out2[0], out[0]);
  // Every input matters: one flipped bit changes the thread's output.
  auto flipped = in;
  flipped[(lab::registers::kValues - 1) * n + 2] ^= 1u;
  EXPECT_NE(lab::registers_reference(flipped, n)[2], out[2]);
  EXPECT_THROW(lab::registers_reference(in, n + 1), std::invalid_argument);
}

TEST(RegistersLesson, CompareOutputsNamesTheFirstWrongThread) {
  EXPECT_EQ(lab::compare_outputs({1, 2, 3}, {1, 2, 3}), "ok");
  EXPECT_EQ(lab::compare_outputs({1, 2, 3, 4}, {1, 9, 3, 8}), "WRONG at thread 1: expected 2 got 9 (2 of 4 outputs)");
  EXPECT_EQ(lab::compare_outputs({1, 2}, {1}).rfind("WRONG", 0), 0u);
}

TEST(WarpsCli, DefaultsShapesAndBadValues) {
  auto p = warpfold::testing::parse_lesson<cli::WarpsCommandOptions>("warps", {});
  const auto defaults = cli::resolved_warps_options(p->opts);
  EXPECT_EQ(defaults.shapes, (std::vector<lab::BlockShape>{{80, 1}, {40, 2}, {16, 5}}));
  p = warpfold::testing::parse_lesson<cli::WarpsCommandOptions>("warps", {"--blocks", "33x3,1024x1", "--grid", "4"});
  const auto given = cli::resolved_warps_options(p->opts);
  EXPECT_EQ(given.shapes, (std::vector<lab::BlockShape>{{33, 3}, {1024, 1}}));
  EXPECT_EQ(given.blocks, 4u);
  auto err = [](std::vector<std::string> args) { return warpfold::testing::parse_lesson_error("warps", std::move(args)); };
  EXPECT_NE(err({"--blocks", "0x4"}).find("is not a block shape"), std::string::npos);
  EXPECT_NE(err({"--grid", "0"}).find("--grid"), std::string::npos);
  lab::WarpsOptions big;
  big.shapes = {{64, 32}};  // 2048 threads
  try {
    lab::validate_warps_options(big);
    ADD_FAILURE() << "2048 threads accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("threads per block 2048 > 1024"), std::string::npos) << e.what();
  }
}

// Both runs work everywhere: without a device the rule's warps and the variants with their flags;
// with one, every check passes.
TEST(OccupancyLessonRuns, WarpsWithOrWithoutADevice) {
  const auto out = lab::run_warps({});
  EXPECT_FALSE(out.check_failed);
  ASSERT_EQ(out.report.tables.size(), 2u);
  const auto& summary = out.report.tables[0].rows;
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0][3], 3);   // warps
  EXPECT_EQ(summary[0][5], 16);  // idle lanes
  EXPECT_EQ(out.report.tables[1].rows.size(), 9u);  // three warps for each shape
  EXPECT_EQ(out.report.tables[1].rows[2][6], "0x0000ffff");
  for (const auto& row : summary) {
    if (out.gpu_ran) EXPECT_EQ(row[7], "ok") << row[0];
    else EXPECT_TRUE(row[7].is_null());
  }
}

TEST(OccupancyLessonRuns, RegistersWithOrWithoutADevice) {
  lab::RegistersOptions o;
  o.n = 1000;  // a partial last block
  o.reps = 2;
  const auto out = lab::run_registers(o);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), lab::registers::register_variants().size());
  EXPECT_EQ(rows[0][2], "(none)");
  for (const auto& row : rows) {
    if (out.gpu_ran) EXPECT_EQ(row.back(), "ok") << row[0] << " " << row[1];
    else EXPECT_TRUE(row.back().is_null());
  }
}
