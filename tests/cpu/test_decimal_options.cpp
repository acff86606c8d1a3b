// Whole-number options take plain decimal only: CLI11 alone would read "010" as octal 8 and "0x10"
// as 16, so a run would silently use a value other than the one typed.
#include "cli/bench_command.hpp"
#include "cli/decimal_check.hpp"
#include "cli/ladder_command.hpp"
#include "cli/nested_command.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::parse_command_error;

namespace {

constexpr const char* kNotDecimal = "not a whole number in decimal";
constexpr const char* kNotSeed = "is not a seed";

bool mentions(const std::string& error, const char* what) { return error.find(what) != std::string::npos; }

}  // namespace

TEST(DecimalCheck, AcceptsDigitsOnly) {
  const CLI::Validator check = cli::decimal_check();
  for (std::string ok : {"0", "7", "10", "18446744073709551615"}) EXPECT_EQ(check(ok), "") << ok;
  for (std::string bad : {"", "010", "00", "0x10", "0b1", "-1", "+5", "1e3", "5 ", "1,024", "2^4"}) {
    EXPECT_TRUE(mentions(check(bad), kNotDecimal)) << "'" << bad << "'";
  }
}

TEST(DecimalOptions, RepsAndBlocksRejectOctalAndHex) {
  for (const char* reps : {"010", "0x10"}) {
    EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("ladder", {"--reps", reps}), kNotDecimal))
        << reps;
    EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("bench", {"--reps", reps}), kNotDecimal))
        << reps;
    EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("nested", {"--reps", reps}), kNotDecimal))
        << reps;
  }
  // "064" would otherwise be read as 52 and reported as a block size never typed.
  EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("ladder", {"--block", "064"}), kNotDecimal));
}

TEST(DecimalOptions, DecimalValuesAndCountNotationStillParse) {
  auto ladder = warpfold::testing::parse_lesson<cli::LadderCommandOptions>("ladder", {"--reps", "10", "--block", "64", "--n", "2^10+3"});
  EXPECT_EQ(ladder->opts.lab.reps, 10);
  EXPECT_EQ(ladder->opts.lab.block, 64u);
  EXPECT_EQ(ladder->opts.lab.n, 1027u);  // the count's own notation is turned into digits first
  auto bench = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--reps", "7"});
  EXPECT_EQ(bench->opts.bench.reps, 7);
}

TEST(DecimalOptions, LadderAndNestedSeedsAreCheckedAsEveryOtherSeed) {
  for (const char* seed : {"-1", "010", "0x10", "18446744073709551616"}) {
    EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("ladder", {"--seed", seed}), kNotSeed))
        << seed;
    EXPECT_TRUE(mentions(warpfold::testing::parse_lesson_error("nested", {"--seed", seed}), kNotSeed))
        << seed;
  }
  EXPECT_EQ(warpfold::testing::parse_lesson<cli::NestedCommandOptions>("nested", {"--seed", "18446744073709551615"})->opts.lab.seed,
            18446744073709551615ull);
}
