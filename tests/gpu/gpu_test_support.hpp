#pragma once
// GPU tests skip, visibly, where there is no CUDA device: GTEST_SKIP is reported by ctest as
// "Skipped" (never "Passed"), with the reason.
//
// Every random input of a test comes from new_seed(), a sequence that starts from the test's seed:
// a fresh one per test, or WARPFOLD_TEST_SEED where set. A failed test prints its seed and the
// command line that replays it exactly:
//   WARPFOLD_TEST_SEED=S build/tests/warpfold_gpu_tests --gtest_filter=Suite.Test

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace warpfold::testing {

// The reason no device is usable, or nullopt; asked once per process.
const std::optional<std::string>& no_gpu_reason();

// The seed of the next random input of the running test (see above).
uint64_t new_seed();

// The running test's seed: WARPFOLD_TEST_SEED where set (a decimal number), else drawn afresh.
uint64_t test_seed();

// The largest input a test may use: WARPFOLD_TEST_MAX_N when set (the sanitizer run caps sizes,
// since compute-sanitizer slows kernels 10-100×), else unlimited.
uint64_t max_test_n();

// Whether the tests take representative lists: under compute-sanitizer's racecheck and initcheck
// (WARPFOLD_SANITIZE, harness/sanitizer.hpp), which slow every launch most (racecheck tracks
// every shared-memory access, initcheck every byte of device memory). Every kernel path and size
// class stays; where the whole run takes every pointer offset at every size, a representative one
// takes one offset per size (drawn from the test's seeds), and no rerun of a call already checked
// (a rerun checks reproducibility, which those tools add nothing to).
bool representative_run();

}  // namespace warpfold::testing

#define WARPFOLD_REQUIRE_GPU()                                                        \
  do {                                                                                \
    if (const auto& why = ::warpfold::testing::no_gpu_reason()) {                     \
      GTEST_SKIP() << "no CUDA device (" << *why << "): GPU test not run";            \
    }                                                                                 \
  } while (0)

// Skips the test (visibly) when it needs more than max_test_n() elements.
#define WARPFOLD_REQUIRE_TEST_SIZE(n)                                                                   \
  do {                                                                                              \
    if (uint64_t(n) > ::warpfold::testing::max_test_n()) {                                          \
      GTEST_SKIP() << "needs n = " << uint64_t(n) << ", above WARPFOLD_TEST_MAX_N";                  \
    }                                                                                               \
  } while (0)
