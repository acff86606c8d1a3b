// `warpfold bench`: the power-of-two axis (strict parsing, the sizes it runs), the seed (0 is a seed
// like any other; bench, fuzz and grid read seeds as typed) and the host-memory check that turns an
// impossible size into a sentence.
#include "harness/host_memory.hpp"
#include "cli/bench_command.hpp"
#include "cli/fuzz_command.hpp"
#include "cli/grid_command.hpp"
#include "cpu/cli_test_support.hpp"

#include <gtest/gtest.h>

#include <new>

using namespace warpfold;
using warpfold::testing::parse_command;
using warpfold::testing::parse_command_error;

TEST(BenchAxis, OnlyWholeUnsignedFieldsWithinTheLimitsParse) {
  for (const char* axis : {"10:20abc", "10:20:", "-0:20", "10:20:-1", "30:34:4294967290", "+10:20", " 10:20",
                           "10:20 ", "10::20", ":20", "10:", "0x10:20", "10:20:35", "10:35", "99999999999:1"}) {
    EXPECT_NE(warpfold::testing::parse_lesson_error("bench", {"--pow2", axis}).find("power-of-two axis"),
              std::string::npos)
        << axis;
    bench::BenchOptions o;
    EXPECT_THROW(bench::parse_pow2_axis(axis, o), std::invalid_argument) << axis;
    EXPECT_EQ(o.log2_min, 10u) << axis;  // a rejected axis leaves the options as they were
  }
  bench::BenchOptions o;
  EXPECT_THROW(bench::parse_pow2_axis("", o), std::invalid_argument);
  bench::parse_pow2_axis("0:34:34", o);
  EXPECT_EQ(o.log2_min, 0u);
  EXPECT_EQ(o.log2_max, 34u);
  EXPECT_EQ(o.log2_step, 34u);
}

TEST(BenchAxis, TheSizesRunStopAtMax) {
  auto exponents = [](const std::string& axis) {
    bench::BenchOptions o;
    bench::parse_pow2_axis(axis, o);
    return bench::axis_exponents(o);
  };
  EXPECT_EQ(exponents("10:20:3"), (std::vector<unsigned>{10, 13, 16, 19}));
  EXPECT_EQ(exponents("30:34:4"), (std::vector<unsigned>{30, 34}));
  EXPECT_EQ(exponents("0:34:34"), (std::vector<unsigned>{0, 34}));
  EXPECT_EQ(exponents("34:34"), (std::vector<unsigned>{34}));
  EXPECT_EQ(exponents("10:20").size(), 11u);
  // Options set directly, not parsed: a step past the limit is refused, not wrapped around.
  bench::BenchOptions o;
  o.log2_min = 30;
  o.log2_max = 34;
  o.log2_step = 4294967290u;
  EXPECT_THROW(bench::axis_exponents(o), std::invalid_argument);
  EXPECT_THROW(bench::run_bench(o), std::invalid_argument);
  o.log2_step = 0;
  EXPECT_THROW(bench::axis_exponents(o), std::invalid_argument);
}

TEST(BenchSeed, ZeroIsASeedLikeAnyOther) {
  EXPECT_FALSE(cli::resolved_bench_options(warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {})->opts).seed);
  auto p = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--seed", "0", "--pow2", "10:10", "--types", "int32", "--ops", "sum", "--reps", "1", "--no-cpu"});
  const bench::BenchOptions o = cli::resolved_bench_options(p->opts);
  EXPECT_EQ(o.seed, std::optional<uint64_t>(0));
  EXPECT_EQ(o.log2_max, 10u);
  // The seed is recorded before the device is looked for: the same with or without a GPU.
  const harness::RunOutcome out = bench::run_bench(o);
  EXPECT_EQ(out.report.meta.at("seed"), 0u);
}

TEST(Seeds, AreReadAsTypedOrRefused) {
  for (const char* bad : {"-1", "010", "0x10", "18446744073709551616", "5abc", " 5", ""}) {
    EXPECT_NE(warpfold::testing::parse_lesson_error("bench", {"--seed", bad}).find("is not a seed"),
              std::string::npos)
        << bad;
    EXPECT_NE(parse_command_error(cli::add_fuzz_command, "fuzz", {"--seed", bad}).find("is not a seed"), std::string::npos)
        << bad;
    EXPECT_NE(parse_command_error(cli::add_fuzz_command, "fuzz", {"--replay", bad}).find("is not a seed"),
              std::string::npos)
        << bad;
    EXPECT_NE(warpfold::testing::parse_lesson_error("grid", {"--seed", bad}).find("is not a seed"), std::string::npos)
        << bad;
  }
  auto p = warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", {"--seed", "18446744073709551615"});
  EXPECT_EQ(cli::resolved_bench_options(p->opts).seed, std::optional<uint64_t>(18446744073709551615ull));
}

TEST(HostMemory, ASizeBeyondWhatIsAvailableIsASentenceNamingIt) {
  try {
    harness::check_host_memory(uint64_t(64) << 30, "n = 2^33 elements of 8 bytes",
                               harness::HostMemoryRoom{uint64_t(1) << 30, "available system memory"});
    ADD_FAILURE() << "64 GiB fit in 1 GiB";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n = 2^33 elements of 8 bytes needs about 64.00 GiB of host memory"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("available system memory leaves 1.00 GiB"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(harness::check_host_memory(uint64_t(64) << 30, "x", std::nullopt));  // unknown: the allocation decides
  EXPECT_NO_THROW(harness::check_host_memory(1 << 20, "x", harness::HostMemoryRoom{uint64_t(1) << 30, "test"}));
  if (harness::host_memory_room()) {
    EXPECT_THROW(harness::require_host_memory(uint64_t(1) << 62, "x"), std::invalid_argument);
  }
}

TEST(HostMemory, BadAllocBecomesASentenceNamingTheSize) {
  try {
    harness::with_host_memory(uint64_t(3) << 30, "a 32768 x 32768 matrix sum", []() -> int { throw std::bad_alloc(); });
    ADD_FAILURE() << "bad_alloc passed through";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a 32768 x 32768 matrix sum needs about 3.00 GiB of host memory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(harness::with_host_memory(4, "x", [] { return std::vector<int>{1, 2}; }).size(), 2u);
}

TEST(BenchOptions, RefusesATypeOrOperatorNamedTwice) {
  const auto resolved = [](std::vector<std::string> args) {
    return cli::resolved_bench_options(warpfold::testing::parse_lesson<cli::BenchCommandOptions>("bench", std::move(args))->opts);
  };
  EXPECT_THROW(resolved({"--types", "int32,float,int32"}), std::invalid_argument);
  EXPECT_THROW(resolved({"--ops", "max,max"}), std::invalid_argument);
  EXPECT_EQ(resolved({"--types", "int32,double", "--ops", "max,sum"}).types.size(), 2u);
}
