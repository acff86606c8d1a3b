#include "gpu/gpu_test_support.hpp"

#include "harness/device_info.hpp"

namespace warpfold::testing {

const std::optional<std::string>& no_gpu_reason() {
  static const std::optional<std::string> reason = harness::cuda_unavailable_reason();
  return reason;
}

}  // namespace warpfold::testing
