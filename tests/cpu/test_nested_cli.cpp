// Argument parsing of `warpfold nested` and `warpfold nested hello`, and the CPU part of a run.
#include "cli/nested_command.hpp"
#include "lab/nested/nested_run.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using namespace warpfold;

namespace {

using Parsed = warpfold::testing::ParsedLesson<cli::NestedCommandOptions>;

std::unique_ptr<Parsed> parse(std::vector<std::string> args) {
  return warpfold::testing::parse_lesson<cli::NestedCommandOptions>("nested", std::move(args));
}

std::string parse_error(std::vector<std::string> args) {
  return warpfold::testing::parse_lesson_error("nested", std::move(args));
}

bool hello_chosen(const Parsed& p) { return p.cmd.app->get_subcommand("hello")->parsed(); }

}  // namespace

// The nested table's check column (nested_run.cpp); the book's columns follow it.
constexpr size_t kNestedCheckColumn = 11;

TEST(NestedCli, DefaultsAreTheSeeds) {
  auto p = parse({});
  EXPECT_EQ(p->opts.lab.n, uint64_t(1) << 20);
  EXPECT_EQ(p->opts.lab.block, 512u);
  EXPECT_EQ(p->opts.lab.reps, 20);
  EXPECT_EQ(p->opts.output.format, "table");
  EXPECT_FALSE(hello_chosen(*p));
}

TEST(NestedCli, AcceptsCountsBlocksAndOutputs) {
  auto p = parse({"--n", "2^16+3", "--block", "128", "--reps", "5", "--seed", "7", "--format", "md"});
  EXPECT_EQ(p->opts.lab.n, (uint64_t(1) << 16) + 3);
  EXPECT_EQ(p->opts.lab.block, 128u);
  EXPECT_EQ(p->opts.lab.reps, 5);
  EXPECT_EQ(p->opts.lab.seed, 7u);
  EXPECT_EQ(p->opts.output.format, "md");
}

TEST(NestedCli, HelloDefaultsAreTheSeeds) {
  auto p = parse({"hello"});
  EXPECT_TRUE(hello_chosen(*p));
  EXPECT_EQ(p->opts.hello.grid, 1u);
  EXPECT_EQ(p->opts.hello.block, 8u);
  auto q = parse({"hello", "--grid", "2", "--block", "16"});
  EXPECT_EQ(q->opts.hello.grid, 2u);
  EXPECT_EQ(q->opts.hello.block, 16u);
}

TEST(NestedCli, RejectsBadValues) {
  EXPECT_NE(parse_error({"--block", "48"}).find("power of two from 32 to 1024"), std::string::npos);
  EXPECT_NE(parse_error({"--n", "lots"}).find("not a valid count"), std::string::npos);
  EXPECT_FALSE(parse_error({"--reps", "0"}).empty());
  EXPECT_FALSE(parse_error({"hello", "--block", "0"}).empty());
  EXPECT_FALSE(parse_error({"hello", "--block", "1025"}).empty());
  EXPECT_FALSE(parse_error({"hello", "--grid", "0"}).empty());
  EXPECT_FALSE(parse_error({"hello", "--grid", "65"}).empty());
  EXPECT_FALSE(parse_error({"hello", "--n", "8"}).empty());  // the table's options are not hello's
  EXPECT_FALSE(parse_error({"goodbye"}).empty());
}

// Runs everywhere: without a device only the CPU row exists and the report says why; with one,
// every row must be exact.
TEST(NestedRun, CpuRowIsExactWithOrWithoutADevice) {
  lab::NestedOptions o;
  o.n = 4097;  // not a multiple of the block: the nested rows pad it
  o.block = 64;
  o.reps = 2;
  const auto out = lab::run_nested(o);
  EXPECT_FALSE(out.check_failed);
  ASSERT_EQ(out.report.tables.size(), 1u);
  const auto& rows = out.report.tables.front().rows;
  ASSERT_GE(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "cpu");
  EXPECT_EQ(rows[0][kNestedCheckColumn], "ok");
  if (!out.gpu_ran) {
    EXPECT_EQ(rows.size(), 1u);
    bool said = false;
    for (const auto& line : out.report.preamble) said |= line.find("no CUDA device") != std::string::npos;
    EXPECT_TRUE(said);
  } else {
    ASSERT_EQ(rows.size(), 5u);
    for (const auto& row : rows) EXPECT_EQ(row[kNestedCheckColumn], "ok") << row[0];
  }
}

TEST(NestedRun, InvalidOptionsAreRejectedBeforeAnythingRuns) {
  lab::NestedOptions o;
  o.block = 100;
  EXPECT_THROW(lab::run_nested(o), std::invalid_argument);
  lab::NestedHelloOptions h;
  h.grid = 0;
  EXPECT_THROW(lab::run_nested_hello(h), std::invalid_argument);
}

TEST(NestedCli, RefusesTheReductionsOptionsBeforeHello) {
  // They would be silently ignored: hello has options of its own, after `hello`.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--n", "1024", "hello"}, {"--reps", "7", "hello"}, {"--seed", "3", "hello"}, {"--format", "json", "hello"}}) {
    EXPECT_NE(parse_error(args).find("applies to the nested reduction"), std::string::npos) << args[0];
  }
  auto p = parse({"hello", "--grid", "4", "--block", "8"});
  EXPECT_TRUE(p->opts.hello_command->parsed());
  EXPECT_EQ(p->opts.hello.grid, 4u);
  EXPECT_EQ(parse_error({"--n", "1024"}), "");
}
