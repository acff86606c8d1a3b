// Argument parsing of `warpfold ladder` and the errors a user gets for bad values.
#include "cli/ladder_command.hpp"
#include "harness/run_outcome.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using namespace warpfold;

namespace {

using Parsed = warpfold::testing::ParsedLesson<cli::LadderCommandOptions>;

std::unique_ptr<Parsed> parse(std::vector<std::string> args) {
  return warpfold::testing::parse_lesson<cli::LadderCommandOptions>("ladder", std::move(args));
}

std::string parse_error(std::vector<std::string> args) {
  return warpfold::testing::parse_lesson_error("ladder", std::move(args));
}

}  // namespace

TEST(LadderCli, DefaultsAreTheBooks) {
  auto p = parse({});
  EXPECT_EQ(p->opts.lab.n, uint64_t(1) << 24);
  EXPECT_EQ(p->opts.lab.block, 512u);
  EXPECT_EQ(p->opts.variants, "all");
  EXPECT_EQ(p->opts.output.format, "table");
  EXPECT_FALSE(p->opts.lab.block_sweep);
}

TEST(LadderCli, AcceptsPowerOfTwoNotation) {
  auto p = parse({"--n", "2^20+7", "--block", "128", "--reps", "5", "--variants", "fixed", "--format", "json",
                  "--seed", "99"});
  EXPECT_EQ(p->opts.lab.n, (uint64_t(1) << 20) + 7);
  EXPECT_EQ(p->opts.lab.block, 128u);
  EXPECT_EQ(p->opts.lab.reps, 5);
  EXPECT_EQ(p->opts.variants, "fixed");
  EXPECT_EQ(p->opts.output.format, "json");
  EXPECT_EQ(p->opts.lab.seed, 99u);
  EXPECT_TRUE(parse({"--block-sweep"})->opts.lab.block_sweep);  // without --block: the sweep sets it
}

TEST(LadderCli, RejectsBadBlockSizes) {
  for (const char* b : {"48", "0", "16", "2048", "abc", "-64"}) {
    const std::string err = parse_error({"--block", b});
    EXPECT_NE(err.find("power of two from 32 to 1024"), std::string::npos) << b << ": " << err;
  }
}

TEST(LadderCli, RejectsBadCountsFormatsRepsAndFiles) {
  EXPECT_NE(parse_error({"--n", "lots"}).find("not a valid count"), std::string::npos);
  EXPECT_NE(parse_error({"--format", "xml"}).find("xml"), std::string::npos);
  EXPECT_FALSE(parse_error({"--reps", "0"}).empty());
  EXPECT_NE(parse_error({"--out", "/no/such/dir/x.json"}).find("does not exist"), std::string::npos);
  EXPECT_FALSE(parse_error({"--variants", "some"}).empty());
  EXPECT_FALSE(parse_error({"--bogus"}).empty());
}

TEST(LadderOptions, ValidationNamesTheProblem) {
  lab::LadderOptions o;
  o.n = 0;
  EXPECT_THROW(lab::validate_ladder_options(o), std::invalid_argument);
  o.n = lab::kLadderMaxN + 1;
  try {
    lab::validate_ladder_options(o);
    ADD_FAILURE() << "n = 2^32 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unsigned int"), std::string::npos);
  }
  o.n = 1000;
  o.block = 96;
  EXPECT_THROW(lab::validate_ladder_options(o), std::invalid_argument);
  o.block = 1024;
  o.reps = 0;
  EXPECT_THROW(lab::validate_ladder_options(o), std::invalid_argument);
  o.reps = 1;
  EXPECT_NO_THROW(lab::validate_ladder_options(o));
}

// Runs everywhere: without a device only the CPU rows exist and the report says why; with one,
// the GPU rows follow. Either way the CPU references must be exact.
TEST(LadderRun, CpuRowsAreExactWithOrWithoutADevice) {
  lab::LadderOptions o;
  o.n = 4097;
  o.block = 64;
  o.reps = 2;
  const auto out = lab::run_ladder(o);
  EXPECT_FALSE(out.check_failed);
  ASSERT_FALSE(out.report.tables.empty());
  const auto& rows = out.report.tables.front().rows;
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0][10], "ok");
  EXPECT_EQ(rows[1][10], "ok");
  if (!out.gpu_ran) {
    EXPECT_EQ(rows.size(), 2u);
    bool said = false;
    for (const auto& line : out.report.preamble) said |= line.find("no CUDA device") != std::string::npos;
    EXPECT_TRUE(said);
  } else {
    EXPECT_EQ(rows.size(), 2u + lab::ladder_kernels().size());
  }
}
