// `warpfold profile`: its arguments, the runs it asks for, and the exit codes of what can go wrong
// before anything is profiled (no lesson, no ncu, no cuobjdump, options a lesson rejects).
#include "cli/grid_command.hpp"
#include "cli/ladder_command.hpp"
#include "cli/nested_command.hpp"
#include "cli/finish.hpp"
#include "cli/profile_command.hpp"
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

// `profile LESSON`'s registration of the lesson.
const cli::LessonCommand& profiled(const cli::ProfileCommandOptions& o, const std::string& lesson) {
  for (const cli::LessonCommand& l : o.lessons) {
    if (l.app->get_name() == lesson) return l;
  }
  throw std::logic_error("profile has no lesson " + lesson);
}

// The arguments of the run `warpfold profile LESSON ARGS...` profiles under ncu.
std::vector<std::string> profiled_run(std::vector<std::string> args) {
  const std::string lesson = args.front();
  return profiled(parse_profile(std::move(args))->opts, lesson).profile().lesson_args;
}

}  // namespace

TEST(ProfileCli, LessonOptionsAndNcuOptions) {
  auto p = parse_profile({"ladder", "--n", "2^20", "--block", "256", "--variants", "book", "--seed", "5", "--ncu",
                          "/opt/ncu", "--timeout", "30", "--clock-control", "none", "--ncu-csv", "/tmp/ncu.csv",
                          "--format", "md"});
  const cli::LessonCommand& ladder = profiled(p->opts, "ladder");
  EXPECT_EQ(cli::parsed_args<cli::LadderCommandOptions>(ladder).lab.n, uint64_t(1) << 20);
  EXPECT_EQ(p->opts.ncu.ncu, "/opt/ncu");
  EXPECT_DOUBLE_EQ(p->opts.ncu.timeout_seconds, 30);
  EXPECT_EQ(p->opts.ncu.clock_control, "none");
  EXPECT_EQ(p->opts.ncu.csv_out, "/tmp/ncu.csv");
  EXPECT_EQ(ladder.output->format, "md");
  const cli::LessonProfile lesson = ladder.profile();
  EXPECT_EQ(lesson.lesson_args, (std::vector<std::string>{"ladder", "--n", "1048576", "--block", "256", "--variants",
                                                          "book", "--seed", "5"}));
}

// The ladder's profile adds the warp scheduler's table; the other lessons keep the book's alone.
TEST(ProfileCli, TheLadderAloneCollectsTheWarpState) {
  auto p = parse_profile({"--sass", "k"});
  for (const cli::LessonCommand& l : p->opts.lessons) {
    EXPECT_EQ(l.profile().warp_state, l.app->get_name() == "ladder") << l.app->get_name();
  }
}

TEST(ProfileCli, TheProfiledRunRepeatsEachLessonsOptions) {
  EXPECT_EQ(profiled_run({"grid", "--nx", "1024", "--ny", "512", "--blocks", "32x32,256x8", "--seed", "9"}),
            (std::vector<std::string>{"grid", "--nx", "1024", "--ny", "512", "--blocks", "32x32,256x8", "--seed", "9"}));
  EXPECT_EQ(profiled_run({"divergence", "--n", "4096", "--block", "128", "--timeout", "60"}),
            (std::vector<std::string>{"divergence", "--n", "4096", "--block", "128"}));
  EXPECT_EQ(profiled_run({"nested", "--seed", "3", "--format", "json"}), (std::vector<std::string>{"nested", "--seed", "3"}));
  // "2^20" is repeated as parsed; options left at their defaults are left out (the run has the same).
  EXPECT_EQ(profiled_run({"ladder", "--n", "2^20", "--variants", "fixed", "--seed", "0"}),
            (std::vector<std::string>{"ladder", "--n", "1048576", "--variants", "fixed", "--seed", "0"}));
}

// Without --seed the profile draws one: the profiled run gets it, and the timed run uses it too.
TEST(ProfileCli, TheSeedIsFixedForBothRuns) {
  auto p = parse_profile({"grid", "--nx", "64", "--ny", "64"});
  const cli::LessonProfile lesson = profiled(p->opts, "grid").profile();
  ASSERT_EQ(lesson.lesson_args.size(), 7u);
  EXPECT_EQ(lesson.lesson_args[5], "--seed");
  const harness::RunOutcome timed = lesson.timed_run();
  EXPECT_EQ(timed.report.meta.at("seed").get<uint64_t>(), std::stoull(lesson.lesson_args[6]));
}

// Every lesson with a profile pass is a subcommand of `profile`, and each profiled run's arguments
// parse as the lesson's own command line.
TEST(ProfileCli, EveryProfiledLessonIsOffered) {
  auto p = parse_profile({"--sass", "k"});
  size_t with_pass = 0;
  for (const cli::Lesson& l : cli::lessons()) with_pass += l.has_profile_pass;
  EXPECT_EQ(p->opts.lessons.size(), with_pass);
  for (const cli::LessonCommand& l : p->opts.lessons) {
    const std::vector<std::string> args = profiled_run({l.app->get_name()});
    EXPECT_EQ(warpfold::testing::parse_lesson_error(args.front(), std::vector<std::string>(args.begin() + 1, args.end())), "")
        << args.front();
  }
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
  EXPECT_EQ(cli::run_command(parse_profile({})->cmd), cli::kExitUsageError);
  EXPECT_NE(err.text.str().find("name a lesson"), std::string::npos);
  EXPECT_EQ(cli::run_command(parse_profile({"--sass", "reduceInterleaved", "ladder"})->cmd), cli::kExitUsageError);
  EXPECT_NE(err.text.str().find("--sass takes no lesson"), std::string::npos);
  EXPECT_EQ(cli::run_command(parse_profile({"nested", "hello"})->cmd), cli::kExitUsageError);
  EXPECT_NE(err.text.str().find("`nested hello` is not profiled"), std::string::npos);
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
    EXPECT_EQ(cli::run_command(parse_profile(args)->cmd), cli::kExitUsageError) << args[0];
    EXPECT_NE(err.text.str().find(args[0] + " is an option of --sass, which takes no lesson"), std::string::npos)
        << err.text.str();
  }
  CaptureStderr err;
  cli::run_command(parse_profile({"--format", "json", "ladder", "--n", "2^10"})->cmd);
  EXPECT_NE(err.text.str().find("warpfold profile ladder --format json"), std::string::npos) << err.text.str();
  // After the lesson's name the output options are the lesson's own.
  auto p = parse_profile({"ladder", "--format", "json", "--out", "/tmp/warpfold-profile.json"});
  EXPECT_EQ(profiled(p->opts, "ladder").output->format, "json");
  EXPECT_EQ(profiled(p->opts, "ladder").output->out, "/tmp/warpfold-profile.json");
  EXPECT_EQ(p->opts.sass.output.format, "table");
}

TEST(ProfileCli, WithoutNcuExitCodeFiveAndWhereItLooked) {
  CaptureStderr err;
  EXPECT_EQ(cli::run_command(parse_profile({"ladder", "--n", "2^10", "--ncu", "/nonexistent/ncu"})->cmd), cli::kExitToolMissing);
  EXPECT_NE(err.text.str().find("ncu not found"), std::string::npos) << err.text.str();
  EXPECT_NE(err.text.str().find("/nonexistent/ncu"), std::string::npos);
}

TEST(ProfileCli, WithoutCuobjdumpExitCodeFive) {
  CaptureStderr err;
  EXPECT_EQ(cli::run_command(parse_profile({"--sass", "reduceInterleaved", "--cuobjdump", "/nonexistent/cuobjdump"})->cmd),
            cli::kExitToolMissing);
  EXPECT_NE(err.text.str().find("cuobjdump not found"), std::string::npos) << err.text.str();
}

TEST(ProfileCli, TheHiddenProfilePassOptionNeedsADevice) {
  auto p = warpfold::testing::parse_lesson<cli::LadderCommandOptions>("ladder", {"--n", "2^10", "--profile-pass", "/tmp/unused.tsv"});
  EXPECT_EQ(p->opts.profile_pass, "/tmp/unused.tsv");
  CaptureStderr err;
  const int rc = p->cmd.run();
  if (rc == cli::kExitNoDevice) {
    EXPECT_NE(err.text.str().find("no CUDA device"), std::string::npos);
  } else {
    EXPECT_EQ(rc, cli::kExitOk);  // a machine with a GPU ran the pass
  }
}
