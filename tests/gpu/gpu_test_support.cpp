#include "gpu/gpu_test_support.hpp"

#include "harness/device_info.hpp"
#include "harness/random_data.hpp"
#include "harness/sanitizer.hpp"
#include "harness/splitmix64.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace warpfold::testing {
namespace {

// A decimal number from the environment, or nullopt where unset. Anything else stops the run: a
// value read as something else than was written would quietly test something else.
std::optional<uint64_t> decimal_from_environment(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  const std::string text(v);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    std::fprintf(stderr, "%s='%s' is not a decimal number\n", name, v);
    std::exit(2);
  }
  return value;
}

struct SeedState {
  uint64_t test_seed = 0;
  harness::splitmix64 sequence{0};
};
SeedState& seeds() {
  static SeedState state;
  return state;
}

// Starts each test's seed sequence, and prints how to replay a test that failed.
class SeedListener : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override {
    static const std::optional<uint64_t> fixed = decimal_from_environment("WARPFOLD_TEST_SEED");
    seeds().test_seed = fixed ? *fixed : harness::fresh_seed();
    seeds().sequence = harness::splitmix64{seeds().test_seed};
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed()) return;
    std::printf("[   SEED   ] %s.%s: replay with WARPFOLD_TEST_SEED=%llu%s build/tests/warpfold_gpu_tests "
                "--gtest_filter=%s.%s\n",
                info.test_suite_name(), info.name(), static_cast<unsigned long long>(seeds().test_seed),
                environment_that_shapes_inputs().c_str(), info.test_suite_name(), info.name());
  }
  // The other variables a test's inputs depend on (its sizes and offsets), as set for this run.
  static std::string environment_that_shapes_inputs() {
    std::string text;
    for (const char* name : {"WARPFOLD_TEST_MAX_N", "WARPFOLD_SANITIZE"}) {
      if (const char* v = std::getenv(name)) text += std::string(" ") + name + "=" + v;
    }
    return text;
  }
};

// Registered before main() runs the tests (this file is compiled into the test executable).
[[maybe_unused]] const bool kSeedListenerAdded = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedListener);
  return true;
}();

}  // namespace

uint64_t test_seed() { return seeds().test_seed; }

uint64_t new_seed() { return seeds().sequence(); }

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

bool representative_run() {
  const std::string& tool = harness::sanitizer_tool();
  return tool == "racecheck" || tool == "initcheck";
}

}  // namespace warpfold::testing
