// warpfold fuzz on the device: a short run with a fixed seed tests cases and finds no failure,
// so the fuzzer's executors and CPU references agree with the library and the fixed kernels
// (a broken reference would show here as failures, a broken executor as no cases).
#include "gpu/gpu_test_support.hpp"

#include "fuzz/fuzz_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

TEST(FuzzGpu, AShortSeededRunTestsCasesAndFindsNoFailure) {
  WARPFOLD_REQUIRE_GPU();
  warpfold::fuzz::FuzzOptions options;
  options.seconds = 2;
  options.seed = 20261123;
  options.max_n = std::min<uint64_t>(uint64_t(1) << 20, warpfold::testing::max_test_n());
  const auto outcome = warpfold::fuzz::run_fuzz(options);
  ASSERT_TRUE(outcome.gpu_ran);
  EXPECT_GT(outcome.cases, 10u);
  EXPECT_EQ(outcome.failures, 0u) << "replay a failure with: warpfold fuzz --max-n " << options.max_n
                                   << " --replay CASE_SEED (the failing case seeds are in the run's report)";
}

}  // namespace
