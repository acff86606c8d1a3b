// `warpfold bench`, `warpfold fuzz` and `warpfold report`: argument errors, caught before anything runs.
#include "cli/bench_command.hpp"
#include "cli/fuzz_command.hpp"
#include "cli/report_command.hpp"
#include "cpu/cli_test_support.hpp"

#include <gtest/gtest.h>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::parse_command_error;

TEST(BenchCli, DefaultsAndAxis) {
  auto p = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--pow2", "12:20:4", "--types", "int32,double", "--cold"});
  EXPECT_EQ(p->opts.pow2, "12:20:4");
  EXPECT_EQ(p->opts.types, (std::vector<std::string>{"int32", "double"}));
  EXPECT_TRUE(p->opts.bench.cold);
  bench::BenchOptions o;
  bench::parse_pow2_axis("12:20:4", o);
  EXPECT_EQ(o.log2_min, 12u);
  EXPECT_EQ(o.log2_max, 20u);
  EXPECT_EQ(o.log2_step, 4u);
}

TEST(BenchCli, BadAxesTypesAndOpsAreRejected) {
  for (const char* axis : {"12:10", "10", "10:40", "a:b", "10:20:0", "10:20:1:5"}) {
    EXPECT_NE(warpfold::testing::parse_lesson_error("bench", {"--pow2", axis}).find("power-of-two axis"),
              std::string::npos)
        << axis;
  }
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--types", "int16"}).empty());
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--ops", "xor"}).empty());
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("bench", {"--reps", "0"}).empty());
}

TEST(FuzzCli, BadValuesAreRejected) {
  EXPECT_NE(parse_command_error(cli::add_fuzz_command, "fuzz", {"--seconds", "0"}).find("positive"), std::string::npos);
  EXPECT_NE(parse_command_error(cli::add_fuzz_command, "fuzz", {"--seconds", "soon"}).find("positive"), std::string::npos);
  EXPECT_FALSE(parse_command_error(cli::add_fuzz_command, "fuzz", {"--max-n", "2^30"}).empty());
  EXPECT_DOUBLE_EQ(parse_command(cli::add_fuzz_command, "fuzz", {"--seconds", "2.5"})->opts.fuzz.seconds, 2.5);
  EXPECT_EQ(parse_command(cli::add_fuzz_command, "fuzz", {"--replay", "77"})->opts.fuzz.replay, 77u);
}

TEST(ReportCli, AnOutputDirectoryThatCannotBeMadeIsAnError) {
  auto p = parse_command(cli::add_report_command, "report", {"--out", "/proc/warpfold-cannot-exist", "--quick"});
  EXPECT_TRUE(p->opts.quick);
  EXPECT_THROW(p->cmd.run(), std::invalid_argument);
}
