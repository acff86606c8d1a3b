#include "gpu/gpu_test_support.hpp"

#include "harness/device_info.hpp"

#include <cstdlib>

namespace warpfold::testing {

const std::optional<std::string>& no_gpu_reason() {
  static const std::optional<std::string> reason = harness::cuda_unavailable_reason();
  return reason;
}

uint64_t max_test_n() {
  static const uint64_t cap = [] {
    const char* v = std::getenv("WARPFOLD_TEST_MAX_N");
    return v ? std::strtoull(v, nullptr, 10) : ~uint64_t(0);
  }();
  return cap;
}

}  // namespace warpfold::testing
