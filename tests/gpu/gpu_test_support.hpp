#pragma once
// GPU tests skip, visibly, where there is no CUDA device: GTEST_SKIP is reported by ctest as
// "Skipped" (never "Passed"), with the reason.

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace warpfold::testing {

// The reason no device is usable, or nullopt; asked once per process.
const std::optional<std::string>& no_gpu_reason();

}  // namespace warpfold::testing

#define WARPFOLD_REQUIRE_GPU()                                                        \
  do {                                                                                \
    if (const auto& why = ::warpfold::testing::no_gpu_reason()) {                     \
      GTEST_SKIP() << "no CUDA device (" << *why << "): GPU test not run";            \
    }                                                                                 \
  } while (0)
