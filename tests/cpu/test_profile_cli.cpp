// `warpfold profile`: its arguments, the runs it asks for, and the exit codes of what can go wrong
// before anything is profiled (no lesson, no ncu, no cuobjdump, options a lesson rejects).
#include "cli/ladder_command.hpp"
#include "cli/profile_command.hpp"
#include "cli/profile_lessons.hpp"
#include "cpu/cli_test_support.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::CaptureStderr;
using warpfold::testing::parse_command_error;

namespace {

auto parse_profile(std::vector<std::string> args) { return parse_command(cli::add_profile_command, "profile", std::move(args)); }

}  // namespace

TEST(ProfileCli, LessonOptionsAndNcuOptions) {
  auto p = parse_profile({"ladder", "--n", "2^20", "--block", "256", "--variants", "book", "--seed", "5", "--ncu",
                          "/opt/ncu", "--timeout", "30", "--clock-control", "none", "--ncu-csv", "/tmp/ncu.csv",
                          "--format", "md"});
  EXPECT_EQ(p->opts.ladder.lab.n, uint64_t(1) << 20);
  EXPECT_EQ(p->opts.ncu.ncu, "/opt/ncu");
  EXPECT_DOUBLE_EQ(p->opts.ncu.timeout_seconds, 30);
  EXPECT_EQ(p->opts.ncu.clock_control, "none");
  EXPECT_EQ(p->opts.ncu.csv_out, "/tmp/ncu.csv");
  EXPECT_EQ(p->opts.ladder.output.format, "md");
  const cli::LessonProfile lesson = cli::ladder_profile(cli::resolved_ladder_options(p->opts.ladder));
  EXPECT_EQ(lesson.lesson_args, (std::vector<std::string>{"ladder", "--n", "1048576", "--block", "256", "--variants",
                                                          "book", "--seed", "5"}));
}

TEST(ProfileCli, TheProfiledRunRepeatsEachLessonsOptions) {
  lab::GridOptions grid;
  grid.nx = 1024;
  grid.ny = 512;
  grid.shapes = {{32, 32}, {256, 8}};
  grid.seed = 9;
  EXPECT_EQ(cli::grid_profile(grid).lesson_args,
            (std::vector<std::string>{"grid", "--nx", "1024", "--ny", "512", "--blocks", "32x32,256x8", "--seed", "9"}));
  lab::DivergenceOptions divergence;
  divergence.n = 4096;
  divergence.block = 128;
  EXPECT_EQ(cli::divergence_profile(divergence).lesson_args,
            (std::vector<std::string>{"divergence", "--n", "4096", "--block", "128"}));
  lab::NestedOptions nested;
  nested.seed = 3;
  EXPECT_EQ(cli::nested_profile(nested).lesson_args,
            (std::vector<std::string>{"nested", "--n", "1048576", "--block", "512", "--seed", "3"}));
  // Each argument vector parses as the lesson's own command line.
  const std::vector<std::string> ladder_args{"--n", "1048576", "--variants", "fixed"};
  EXPECT_EQ(parse_command_error(cli::add_ladder_command, "ladder", ladder_args), "");
}

TEST(ProfileCli, BadValuesAreRejectedBeforeAnythingRuns) {
  EXPECT_NE(parse_command_error(cli::add_profile_command, "profile", {"ladder", "--clock-control", "max"}), "");
  EXPECT_NE(parse_command_error(cli::add_profile_command, "profile", {"ladder", "--timeout", "0"}), "");
  EXPECT_NE(parse_command_error(cli::add_profile_command, "profile", {"ladder", "--ncu-csv", "/nonexistent/x.csv"}), "");
  EXPECT_NE(parse_command_error(cli::add_profile_command, "profile", {"--sass", "k", "--variant", "other"}), "");
  EXPECT_NE(parse_command_error(cli::add_profile_command, "profile", {"--sass", "k", "--binary", "/nonexistent"}), "");
  auto p = parse_profile({"ladder", "--block-sweep"});
  EXPECT_THROW(p->cmd.run(), std::invalid_argument);  // main() turns it into exit code 2
  p = parse_profile({"ladder", "--n", "0"});
  EXPECT_THROW(p->cmd.run(), std::invalid_argument);
}

TEST(ProfileCli, NoLessonOrBothALessonAndSassAreUsageErrors) {
  CaptureStderr err;
  EXPECT_EQ(parse_profile({})->cmd.run(), cli::kExitUsageError);
  EXPECT_NE(err.text.str().find("name a lesson"), std::string::npos);
  EXPECT_EQ(parse_profile({"--sass", "reduceInterleaved", "ladder"})->cmd.run(), cli::kExitUsageError);
  EXPECT_NE(err.text.str().find("--sass takes no lesson"), std::string::npos);
  EXPECT_EQ(parse_profile({"nested", "hello"})->cmd.run(), cli::kExitUsageError);
}

TEST(ProfileCli, SassOptionsGivenWithALessonAreUsageErrors) {
  const std::vector<std::vector<std::string>> cases{{"--out", "/tmp/warpfold-profile.txt", "ladder"},
                                                    {"--format", "json", "ladder"},
                                                    {"--variant", "book", "ladder"},
                                                    {"--binary", "/bin/sh", "grid"},
                                                    {"--summary-only", "divergence"},
                                                    {"--cuobjdump", "/nonexistent/cuobjdump", "nested"}};
  for (const auto& args : cases) {
    CaptureStderr err;
    EXPECT_EQ(parse_profile(args)->cmd.run(), cli::kExitUsageError) << args[0];
    EXPECT_NE(err.text.str().find(args[0] + " is an option of --sass, which takes no lesson"), std::string::npos)
        << err.text.str();
  }
  CaptureStderr err;
  parse_profile({"--format", "json", "ladder", "--n", "2^10"})->cmd.run();
  EXPECT_NE(err.text.str().find("warpfold profile ladder --format json"), std::string::npos) << err.text.str();
  // After the lesson's name the output options are the lesson's own.
  auto p = parse_profile({"ladder", "--format", "json", "--out", "/tmp/warpfold-profile.json"});
  EXPECT_EQ(p->opts.ladder.output.format, "json");
  EXPECT_EQ(p->opts.ladder.output.out, "/tmp/warpfold-profile.json");
  EXPECT_EQ(p->opts.sass.output.format, "table");
}

TEST(ProfileCli, WithoutNcuExitCodeFiveAndWhereItLooked) {
  CaptureStderr err;
  EXPECT_EQ(parse_profile({"ladder", "--n", "2^10", "--ncu", "/nonexistent/ncu"})->cmd.run(), cli::kExitToolMissing);
  EXPECT_NE(err.text.str().find("ncu not found"), std::string::npos) << err.text.str();
  EXPECT_NE(err.text.str().find("/nonexistent/ncu"), std::string::npos);
}

TEST(ProfileCli, WithoutCuobjdumpExitCodeFive) {
  CaptureStderr err;
  EXPECT_EQ(parse_profile({"--sass", "reduceInterleaved", "--cuobjdump", "/nonexistent/cuobjdump"})->cmd.run(),
            cli::kExitToolMissing);
  EXPECT_NE(err.text.str().find("cuobjdump not found"), std::string::npos) << err.text.str();
}

TEST(ProfileCli, TheHiddenProfilePassOptionNeedsADevice) {
  auto p = parse_command(cli::add_ladder_command, "ladder", {"--n", "2^10", "--profile-pass", "/tmp/unused.tsv"});
  EXPECT_EQ(p->opts.profile_pass, "/tmp/unused.tsv");
  CaptureStderr err;
  const int rc = p->cmd.run();
  if (rc == cli::kExitNoDevice) {
    EXPECT_NE(err.text.str().find("no CUDA device"), std::string::npos);
  } else {
    EXPECT_EQ(rc, cli::kExitOk);  // a machine with a GPU ran the pass
  }
}
