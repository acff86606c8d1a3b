#include "gpu/gpu_test_support.hpp"

#include "harness/device_info.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace warpfold::testing {

const std::optional<std::string>& no_gpu_reason() {
  static const std::optional<std::string> reason = harness::cuda_unavailable_reason();
  return reason;
}

uint64_t max_test_n() {
  static const uint64_t cap = [] {
    const char* v = std::getenv("WARPFOLD_TEST_MAX_N");
    if (v == nullptr) return ~uint64_t(0);
    // A decimal count, or 2^k. Anything else stops the run: a cap read as 0 would quietly leave
    // the tests nothing to check.
    const std::string text(v);
    uint64_t value = 0;
    const bool power = text.rfind("2^", 0) == 0;
    const char* first = text.data() + (power ? 2 : 0);
    const char* last = text.data() + text.size();
    const auto [end, error] = std::from_chars(first, last, value);
    const bool ok = error == std::errc() && end == last && first != last && (!power || value < 64) && (power || value > 0);
    if (!ok) {
      std::fprintf(stderr, "WARPFOLD_TEST_MAX_N='%s' is not a count (a positive decimal number or 2^k, k < 64)\n", v);
      std::exit(2);
    }
    return power ? uint64_t(1) << value : value;
  }();
  return cap;
}

}  // namespace warpfold::testing
