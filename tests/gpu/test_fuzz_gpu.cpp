// warpfold fuzz on the device: a short run with a fixed seed tests cases and finds no failure,
// so the fuzzer's executors and CPU references agree with the library and the fixed kernels
// (a broken reference would show here as failures, a broken executor as no cases).
#include "gpu/gpu_test_support.hpp"
#include "harness/sanitizer.hpp"

#include "fuzz/fuzz_run.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace {

// Whether this build has machine code for the device (its compute capability among the CMake
// architectures, as "90", "90-real" or "90a"): otherwise the driver compiles the PTX of every
// kernel at its first launch, which takes most of a short run.
bool runs_machine_code_of_this_build() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return true;
  }
  const std::string mine = std::to_string(major * 10 + minor);
  std::stringstream list(WARPFOLD_TEST_CUDA_ARCHITECTURES);
  for (std::string arch; std::getline(list, arch, ',');) {
    if (arch == "native" || arch == "all" || arch == "all-major") return true;
    if (arch.rfind(mine, 0) == 0 && arch.find("virtual") == std::string::npos) return true;
  }
  return false;
}

TEST(FuzzGpu, AShortSeededRunTestsCasesAndFindsNoFailure) {
  WARPFOLD_REQUIRE_GPU();
  warpfold::fuzz::FuzzOptions options;
  options.seconds = runs_machine_code_of_this_build() ? 2 : 30;  // the PTX compiled at first launch
  options.seed = 20261123;
  options.max_n = std::min<uint64_t>(uint64_t(1) << 20, warpfold::testing::max_test_n());
  const auto outcome = warpfold::fuzz::run_fuzz(options);
  ASSERT_TRUE(outcome.gpu_ran);
  // Under a sanitizer the same seconds run a few cases only: at least one must.
  EXPECT_GT(outcome.cases, warpfold::harness::sanitizer_tool().empty() ? 10u : 0u);
  EXPECT_EQ(outcome.failures, 0u) << "replay a failure with: warpfold fuzz --max-n " << options.max_n
                                   << " --replay CASE_SEED (the failing case seeds are in the run's report)";
}

}  // namespace
