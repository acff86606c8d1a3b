// The CPU's model of the divergence kernels: branch rules, divergent warps, the output check and
// the registry of both builds.
#include "lab/divergence/divergence_registry.hpp"
#include "lab/divergence/divergence_run.hpp"
#include "lab/divergence/divergence_workspace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace warpfold;
using namespace warpfold::lab::divergence;

TEST(DivergenceRules, FollowTheBooksConditions) {
  EXPECT_TRUE(even_thread(0, 32));
  EXPECT_FALSE(even_thread(1, 32));
  EXPECT_TRUE(even_warp(31, 32));
  EXPECT_FALSE(even_warp(32, 32));
  EXPECT_TRUE(even_warp(64, 32));
  for (int64_t tid = 0; tid < 4096; ++tid) {
    EXPECT_FALSE(never(tid, 32));
    EXPECT_EQ(even_warp_of_32(tid, 32), even_warp(tid, 32)) << tid;
  }
  EXPECT_EQ(expected_value(even_thread, 2, 32), kIfValue);
  EXPECT_EQ(expected_value(even_thread, 3, 32), kElseValue);
}

TEST(DivergentWarps, EveryWarpSplitsOnThreadParityNoneOnWarpParity) {
  const uint64_t threads = 1024 * 10000;
  EXPECT_EQ(count_divergent_warps(even_thread, threads, 32).divergent, threads / 32);
  EXPECT_DOUBLE_EQ(count_divergent_warps(even_thread, threads, 32).divergent_fraction(), 1.0);
  EXPECT_EQ(count_divergent_warps(even_warp, threads, 32).divergent, 0u);
  EXPECT_EQ(count_divergent_warps(never, threads, 32).divergent, 0u);
  const WarpPaths partial = count_divergent_warps(even_thread, 33, 32);  // the last warp has one thread
  EXPECT_EQ(partial.warps, 2u);
  EXPECT_EQ(partial.divergent, 1u);
  EXPECT_DOUBLE_EQ(WarpPaths{}.divergent_fraction(), 0.0);
}

TEST(DivergenceCheck, FindsTheFirstWrongValue) {
  std::vector<float> out(100);
  for (size_t t = 0; t < out.size(); ++t) out[t] = expected_value(even_warp, int64_t(t), 32);
  EXPECT_EQ(check_output(out.data(), out.size(), even_warp, 32).verdict(), "ok");
  out[40] = std::numeric_limits<float>::quiet_NaN();  // a thread that wrote nothing
  out[50] = kIfValue;  // warp 1 takes the else branch
  const OutputCheck c = check_output(out.data(), out.size(), even_warp, 32);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.first_bad, 40);
  EXPECT_EQ(c.verdict().rfind("WRONG at tid 40: expected 200 got nan (2 of 100 values)", 0), 0u) << c.verdict();
  EXPECT_FALSE(check_output(out.data(), 0, even_warp, 32).ok());  // nothing checked is no pass
}

TEST(DivergenceRegistry, EveryKernelInBothBuilds) {
  const auto& kernels = divergence_kernels();
  ASSERT_EQ(kernels.size(), 8u);
  EXPECT_EQ(kernels.front().name, "warmingup");
  std::set<const void*> functions;
  std::set<std::string_view> names;
  for (const auto& k : kernels) {
    names.insert(k.name);
    for (Build b : {Build::optimised, Build::device_debug}) {
      EXPECT_NE(k.in(b).launch, nullptr) << k.name;
      EXPECT_NE(k.in(b).function, nullptr) << k.name;
      functions.insert(k.in(b).function);
    }
  }
  EXPECT_EQ(names.size(), kernels.size());
  EXPECT_EQ(functions.size(), 2 * kernels.size());  // the -G copy is a kernel of its own
  EXPECT_EQ(to_string(Build::optimised), "-O3");
  EXPECT_EQ(to_string(Build::device_debug), "-G");
}

TEST(DivergenceOptions, SeedDefaultsAndValidation) {
  lab::DivergenceOptions o;
  EXPECT_EQ(o.n, 10240000u);
  EXPECT_EQ(o.block, 64u);
  EXPECT_EQ(divergence_grid(o.n, o.block), 160000u);
  EXPECT_EQ(divergence_grid(1000, 64), 16u);
  EXPECT_EQ(DivergenceWorkspace::bytes_needed(1000, 64), 1024u * sizeof(float));
  EXPECT_NO_THROW(lab::validate_divergence_options(o));
  auto bad = [&](auto change) {
    lab::DivergenceOptions x;
    change(x);
    EXPECT_THROW(lab::validate_divergence_options(x), std::invalid_argument);
  };
  bad([](auto& x) { x.n = 0; });
  bad([](auto& x) { x.n = lab::kDivergenceMaxN + 1; });
  bad([](auto& x) { x.block = 48; });
  bad([](auto& x) { x.block = 2048; });
  bad([](auto& x) { x.reps = 0; });
}
