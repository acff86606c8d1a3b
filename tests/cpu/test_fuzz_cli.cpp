// `warpfold fuzz`: the range of --seconds, flags a replay cannot honour, the replay command a run
// prints (it must reproduce the case), the seed (0 is a seed like any other) and the exit codes its
// counts call for (a run that tested nothing fails).
#include "cli/finish.hpp"
#include "cli/fuzz_command.hpp"
#include "cpu/cli_test_support.hpp"
#include "fuzz/fuzz_case.hpp"
#include "lab/ladder/registry.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::parse_command_error;

namespace {

std::string fuzz_error(std::vector<std::string> args) {
  return parse_command_error(cli::add_fuzz_command, "fuzz", std::move(args));
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST(FuzzCli, SecondsMustBeFiniteAndInRange) {
  for (const char* bad : {"inf", "-inf", "nan", "1e308", "86401", "0.01", "0", "-1", "5s", " 5", "soon"}) {
    EXPECT_NE(fuzz_error({"--seconds", bad}).find("from 0.1 to 86400"), std::string::npos) << bad;
  }
  for (const char* good : {"0.1", "2.5", "60", "86400", "1e3"}) EXPECT_EQ(fuzz_error({"--seconds", good}), "") << good;
  fuzz::FuzzOptions o;
  for (double bad : {std::numeric_limits<double>::infinity(), 1e308, 0.01, std::numeric_limits<double>::quiet_NaN()}) {
    o.seconds = bad;
    EXPECT_THROW(fuzz::run_fuzz(o), std::invalid_argument) << bad;
  }
}

TEST(FuzzCli, AReplayTakesNeitherSecondsNorASeed) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--replay", "7", "--seconds", "5"}, {"--seconds", "5", "--replay", "7"}, {"--replay", "7", "--seed", "1"}}) {
    const std::string err = fuzz_error(args);
    EXPECT_NE(err.find("--replay"), std::string::npos) << err;
    EXPECT_NE(err.find(args[0] == "--replay" ? args[2] : args[0]), std::string::npos) << err;
  }
  EXPECT_EQ(fuzz_error({"--replay", "7", "--max-n", "1000"}), "");
}

TEST(FuzzCli, ThePrintedReplayCommandReproducesTheCase) {
  const size_t ladder_kernels = lab::select_kernels(lab::VariantSelection::fixed).size();
  const uint64_t max_n = 1000, run_seed = 5;
  // A case of a run with a small --max-n, one whose size the default max-n would change.
  uint64_t seed = 0;
  for (uint64_t i = 0; seed == 0; ++i) {
    const uint64_t s = fuzz::case_seed(run_seed, i);
    if (fuzz::make_case(s, max_n, ladder_kernels).n != fuzz::make_case(s, uint64_t(1) << 24, ladder_kernels).n) seed = s;
  }
  const std::vector<std::string> command = words(fuzz::replay_command(seed, max_n));
  ASSERT_GE(command.size(), 2u);
  EXPECT_EQ(command[0], "warpfold");
  EXPECT_EQ(command[1], "fuzz");
  auto p = parse_command(cli::add_fuzz_command, "fuzz", std::vector<std::string>(command.begin() + 2, command.end()));
  const fuzz::FuzzOptions replay = p->opts.fuzz;
  ASSERT_TRUE(replay.replay);
  const fuzz::FuzzCase original = fuzz::make_case(seed, max_n, ladder_kernels);
  const fuzz::FuzzCase replayed = fuzz::make_case(*replay.replay, replay.max_n, ladder_kernels);
  EXPECT_EQ(fuzz::describe(replayed), fuzz::describe(original));
  EXPECT_EQ(replayed.n, original.n);

  // The run's header says how to replay its cases, --max-n included.
  fuzz::FuzzOptions o;
  o.seconds = 0.1;
  o.max_n = max_n;
  const std::string header = fuzz::run_fuzz(o).report.preamble.at(0);
  EXPECT_NE(header.find("warpfold fuzz --max-n 1000 --replay CASE_SEED"), std::string::npos) << header;
}

TEST(FuzzCli, ZeroIsASeedLikeAnyOther) {
  EXPECT_FALSE(parse_command(cli::add_fuzz_command, "fuzz", {})->opts.fuzz.seed);
  auto p = parse_command(cli::add_fuzz_command, "fuzz", {"--seed", "0", "--seconds", "0.1", "--max-n", "64"});
  const fuzz::FuzzOptions o = p->opts.fuzz;
  EXPECT_EQ(o.seed, std::optional<uint64_t>(0));
  EXPECT_EQ(fuzz::run_fuzz(o).report.meta.at("seed"), 0u);
}

TEST(FuzzCli, ARunThatTestedNothingFails) {
  fuzz::FuzzRunOutcome out;
  out.gpu_ran = true;
  fuzz::judge_counts(out);
  EXPECT_EQ(cli::exit_code(out), cli::kExitRuntimeError);
  EXPECT_NE(out.stop_reason.find("no fuzz case ran"), std::string::npos) << out.stop_reason;
}

TEST(FuzzCli, FailedCasesFailTheCheckAndSayHowMany) {
  fuzz::FuzzRunOutcome out;
  out.gpu_ran = true;
  out.cases = 3;
  fuzz::judge_counts(out);
  EXPECT_EQ(cli::exit_code(out), cli::kExitOk);
  out.failures = 1;
  fuzz::judge_counts(out);
  EXPECT_EQ(cli::exit_code(out), cli::kExitCheckFailed);
  EXPECT_NE(out.wrong.find("1 of 3 fuzz cases failed"), std::string::npos) << out.wrong;
  fuzz::FuzzRunOutcome no_device;
  fuzz::judge_counts(no_device);
  EXPECT_EQ(cli::exit_code(no_device), cli::kExitNoDevice);
}
