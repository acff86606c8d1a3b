// `warpfold divergence`, `info` and `grid`: their arguments, the errors a user gets for bad values,
// the exit codes, and their runs with or without a device (small sizes, so the GPU machine's run of
// these tests stays quick).
#include "cli/divergence_command.hpp"
#include "cli/grid_command.hpp"
#include "cli/info_command.hpp"
#include "cpu/cli_test_support.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::parse_command_error;

namespace {

bool says_no_device(const report::Report& r) {
  for (const auto& line : r.preamble) {
    if (line.find("no CUDA device") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(DivergenceCli, DefaultsAreTheSeeds) {
  auto p = warpfold::testing::parse_lesson<cli::DivergenceCommandOptions>("divergence", {});
  EXPECT_EQ(p->opts.lab.n, 1024u * 10000u);
  EXPECT_EQ(p->opts.lab.block, 64u);
  EXPECT_EQ(p->opts.output.format, "table");
  p = warpfold::testing::parse_lesson<cli::DivergenceCommandOptions>("divergence", {"--n", "2^20", "--block", "128", "--reps", "5", "--format", "json"});
  EXPECT_EQ(p->opts.lab.n, uint64_t(1) << 20);
  EXPECT_EQ(p->opts.lab.block, 128u);
  EXPECT_EQ(p->opts.lab.reps, 5);
  EXPECT_EQ(p->opts.output.format, "json");
}

TEST(DivergenceCli, RejectsBadValues) {
  auto err = [](std::vector<std::string> args) {
    return warpfold::testing::parse_lesson_error("divergence", std::move(args));
  };
  EXPECT_NE(err({"--block", "48"}).find("power of two from 32 to 1024"), std::string::npos);
  EXPECT_NE(err({"--n", "lots"}).find("not a valid count"), std::string::npos);
  EXPECT_FALSE(err({"--reps", "0"}).empty());
  EXPECT_FALSE(err({"--format", "xml"}).empty());
}

TEST(GridCli, DefaultsAndShapes) {
  auto p = warpfold::testing::parse_lesson<cli::GridCommandOptions>("grid", {});
  EXPECT_EQ(p->opts.lab.nx, 16384u);
  EXPECT_EQ(p->opts.lab.ny, 16384u);
  EXPECT_EQ(p->opts.lab.shapes, lab::grid_sweep_shapes());
  EXPECT_TRUE(p->opts.blocks.empty());
  p = warpfold::testing::parse_lesson<cli::GridCommandOptions>("grid", {"--nx", "2^10", "--ny", "1000", "--blocks", "32x32,256x8", "--reps", "3", "--seed", "7"});
  EXPECT_EQ(p->opts.lab.nx, 1024u);
  EXPECT_EQ(p->opts.lab.ny, 1000u);
  EXPECT_EQ(p->opts.blocks, "32x32,256x8");
  EXPECT_EQ(p->opts.lab.seed, 7u);
}

TEST(GridCli, MalformedShapesAreRejectedWithTheReason) {
  for (const char* bad : {"0x0", "7", "abc", "32x32,,64x2", "32x0"}) {
    const std::string err = warpfold::testing::parse_lesson_error("grid", {"--blocks", bad});
    EXPECT_NE(err.find("--blocks"), std::string::npos) << bad << ": " << err;
    EXPECT_TRUE(err.find("is not a block shape") != std::string::npos || err.find("empty item") != std::string::npos)
        << bad << ": " << err;
  }
  EXPECT_NE(warpfold::testing::parse_lesson_error("grid", {"--nx", "abc"}).find("not a valid count"),
            std::string::npos);
}

TEST(InfoCli, LatenciesArePositiveCycles) {
  auto p = warpfold::testing::parse_lesson<cli::InfoCommandOptions>("info", {"--arith-latency", "4", "--mem-latency", "600"});
  EXPECT_DOUBLE_EQ(p->opts.lab.latency.arithmetic_cycles, 4);
  EXPECT_DOUBLE_EQ(p->opts.lab.latency.memory_cycles, 600);
  for (const char* bad : {"-5", "0", "abc", "5x"}) {
    const std::string err = warpfold::testing::parse_lesson_error("info", {"--mem-latency", bad});
    EXPECT_NE(err.find("not a positive number of cycles"), std::string::npos) << bad << ": " << err;
  }
  EXPECT_FALSE(warpfold::testing::parse_lesson_error("info", {"--format", "xml"}).empty());
}

// The three runs work everywhere: without a device the CPU part and the reason; with one, the checks.
TEST(ExecutionModelRuns, DivergenceWithOrWithoutADevice) {
  lab::DivergenceOptions o;
  o.n = 1000;
  o.reps = 2;
  const auto out = lab::run_divergence(o);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_DOUBLE_EQ(rows[1][2].get<double>(), 100.0);  // mathKernel1: every warp diverges
  EXPECT_DOUBLE_EQ(rows[2][2].get<double>(), 0.0);    // mathKernel2: none
  if (!out.gpu_ran) {
    EXPECT_TRUE(says_no_device(out.report));
    EXPECT_TRUE(rows[1][3].is_null());
  } else {
    for (const auto& row : rows) {
      EXPECT_EQ(row[9], "ok") << row[0];   // -O3
      EXPECT_EQ(row[10], "ok") << row[0];  // -G
    }
  }
}

TEST(ExecutionModelRuns, InfoWithOrWithoutADevice) {
  const auto out = lab::run_info({});
  EXPECT_FALSE(out.check_failed);
  ASSERT_FALSE(out.report.tables.empty());
  if (!out.gpu_ran) {
    EXPECT_TRUE(says_no_device(out.report));
    ASSERT_EQ(out.report.tables.size(), 1u);
    EXPECT_EQ(out.report.tables[0].rows.size(), 4u);  // the book's worked examples
  } else {
    EXPECT_EQ(out.report.tables.size(), 3u);
  }
}

TEST(ExecutionModelRuns, GridWithOrWithoutADevice) {
  lab::GridOptions o;
  o.nx = 100;
  o.ny = 50;
  o.shapes = {{32, 32}, {256, 8}, {16, 16}};
  o.reps = 2;
  const auto out = lab::run_grid(o);
  EXPECT_FALSE(out.check_failed);
  const auto& rows = out.report.tables.at(0).rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1], "4x2");
  const std::string invalid = rows[1][11];
  EXPECT_EQ(invalid.rfind("invalid configuration: threads per block 2048 > 1024", 0), 0u) << invalid;
  if (!out.gpu_ran) {
    EXPECT_TRUE(says_no_device(out.report));
    EXPECT_TRUE(rows[0][11].is_null());
  } else {
    EXPECT_EQ(rows[0][11], "ok");
    EXPECT_EQ(rows[2][11], "ok");
  }
}

TEST(ExecutionModelRuns, OptionsAreValidatedBeforeAnythingRuns) {
  lab::GridOptions g;
  g.shapes.clear();
  EXPECT_THROW(lab::run_grid(g), std::invalid_argument);
  g = {};
  g.nx = 0;
  EXPECT_THROW(lab::run_grid(g), std::invalid_argument);
  lab::InfoOptions i;
  i.latency.memory_cycles = 0;
  EXPECT_THROW(lab::run_info(i), std::invalid_argument);
  lab::DivergenceOptions d;
  d.block = 96;
  EXPECT_THROW(lab::run_divergence(d), std::invalid_argument);
}
