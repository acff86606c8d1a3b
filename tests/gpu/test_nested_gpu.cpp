// The nested reductions on the device: every variant against the CPU sum on fresh random data
// (values 1..255, never 0, so a dropped element always shows), at awkward and book sizes and
// several block sizes, with the device-side launches counted against the formulas; the seed's
// table; nestedHelloWorld's launches and lines; and a launch failure reported, never hung on.
#include "gpu/gpu_test_support.hpp"

#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "lab/nested/launch_limits.hpp"
#include "lab/nested/nested_run.hpp"
#include "lab/nested/nested_workspace.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

using namespace warpfold;

namespace {

struct Case {
  uint64_t n;
  unsigned block;
};

// Tiny and odd sizes (padded), the seed's size, the largest and smallest blocks.
const Case kCases[] = {{1, 32},        {2, 32},          {31, 32},     {33, 32},
                       {1000, 64},     {4096, 128},      {65537, 256}, {(1u << 18) + 5, 512},
                       {1u << 20, 512}, {1u << 20, 1024}, {1u << 18, 32}};

const lab::NestedOptions kSeedTable{};  // n = 2^20, block 512: the seed's configuration

uint64_t slots_for_these_tests() {
  uint64_t most = 0;
  for (const Case& c : kCases) {
    const lab::NestedShape s = lab::nested_shape(c.n, c.block);
    most = std::max(most, lab::nested_launch_slots(s.grid, s.block));
  }
  const lab::NestedShape seed = lab::nested_shape(kSeedTable.n, kSeedTable.block);
  return std::max(most, lab::nested_launch_slots(seed.grid, seed.block));
}

// Reserves the launch slots once, before any test of this executable launches a kernel (the
// limit is best changed while nothing has run). A failure here is reported again, with its
// reason, by the first test that needs the slots.
class LaunchSlotsEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (warpfold::testing::no_gpu_reason()) return;
    try {
      lab::ensure_launch_slots(slots_for_these_tests());
    } catch (const std::exception&) {
    }
  }
};
[[maybe_unused]] ::testing::Environment* const kLaunchSlots =
    ::testing::AddGlobalTestEnvironment(new LaunchSlotsEnvironment);

class NestedVariantTest : public ::testing::TestWithParam<lab::NestedVariant> {};

TEST_P(NestedVariantTest, MatchesCpuSumAndLaunchesEveryChild) {
  WARPFOLD_REQUIRE_GPU();
  ASSERT_NO_THROW(lab::ensure_launch_slots(slots_for_these_tests()));
  const lab::NestedVariant v = GetParam();
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const Case& c : kCases) {
    const uint64_t seed = warpfold::testing::new_seed();
    const auto data = harness::random_ints(c.n, seed, 1, 255);
    const lab::NestedWorkspace ws(data, lab::serial_sum(data.data(), c.n), c.block, stream);
    const lab::NestedCheck check = ws.run_and_check(v);
    const std::string where = "n = " + std::to_string(c.n) + ", block " + std::to_string(c.block) + ", seed " +
                              std::to_string(seed) + ": " + check.verdict();
    EXPECT_TRUE(check.ok()) << where;
    EXPECT_EQ(check.record.failures, 0u) << where;
    EXPECT_EQ(check.record.launches, lab::nested_child_launches(v, ws.shape().grid, c.block)) << where;
    // Twice more on the same workspace: the input is restored, the record counts both runs.
    ws.reset_record();
    for (int run = 0; run < 2; ++run) {
      ws.restore();
      ws.launch(v);
    }
    const lab::NestedCheck again = ws.check_runs(v, 2);
    EXPECT_TRUE(again.ok()) << "after two more runs, " << where << " -> " << again.verdict();
  }
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(Nested, NestedVariantTest, ::testing::ValuesIn(lab::kNestedVariants),
                         [](const auto& info) { return std::string(lab::nested_row_name(info.param)); });

// The nested table's check column (nested_run.cpp); the book's columns follow it.
constexpr size_t kNestedCheckColumn = 11;

TEST(NestedRunGpu, SeedConfigurationIsExactAndCountsItsLaunches) {
  WARPFOLD_REQUIRE_GPU();
  lab::NestedOptions o = kSeedTable;
  o.reps = 2;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_nested(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& t = out.report.tables.at(0);
  ASSERT_EQ(t.rows.size(), 5u);
  const char* names[] = {"cpu", "neighbored", "nested", "nestedNosync", "nested2"};
  const uint64_t launches[] = {0, 0, 2048 * 8, 2048 * 8, 8};
  for (size_t i = 0; i < 5; ++i) {
    const auto& row = t.rows[i];
    EXPECT_EQ(row[0], names[i]);
    EXPECT_EQ(row[kNestedCheckColumn], "ok") << names[i];
    EXPECT_TRUE(row[6].is_number()) << names[i] << ": median ms";
    if (i >= 1) EXPECT_EQ(row[4].get<uint64_t>(), launches[i]) << names[i] << ": child launches";
    if (i >= 2) EXPECT_TRUE(row[9].is_number()) << names[i] << ": x neighbored";
  }
}

TEST(NestedRunGpu, SizeThatIsNoMultipleOfTheBlockIsPaddedAndExact) {
  WARPFOLD_REQUIRE_GPU();
  lab::NestedOptions o;
  o.n = (1u << 16) + 3;
  o.block = 256;
  o.reps = 2;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_nested(o);
  EXPECT_FALSE(out.check_failed);
  const auto& t = out.report.tables.at(0);
  ASSERT_EQ(t.rows.size(), 5u);
  for (const auto& row : t.rows) EXPECT_EQ(row[kNestedCheckColumn], "ok") << row[0];
  bool padded = false;
  for (const auto& note : t.notes) padded |= note.find("pad n = 65539") != std::string::npos;
  EXPECT_TRUE(padded);
}

TEST(NestedHelloGpu, LaunchesAndLinesMatchTheSeed) {
  WARPFOLD_REQUIRE_GPU();
  struct HelloCase {
    unsigned grid, block;
    uint64_t launches, lines;
  };
  // grid 1, block 8 is the seed's run: 15 "Recursion=" lines, 3 "------->" lines.
  for (const HelloCase& c : {HelloCase{1, 8, 3, 18}, HelloCase{2, 16, 8, 70}, HelloCase{1, 1, 0, 1}}) {
    const auto out = lab::run_nested_hello({c.grid, c.block});
    ASSERT_TRUE(out.gpu_ran);
    EXPECT_TRUE(out.ok()) << out.summary();
    EXPECT_EQ(out.record.launches, c.launches) << c.grid << " x " << c.block;
    EXPECT_EQ(out.record.printed_lines, c.lines) << c.grid << " x " << c.block;
  }
}

// Restores the launch-slot limit when the test leaves, however it leaves.
class SlotLimitGuard {
 public:
  SlotLimitGuard() { cudaDeviceGetLimit(&before_, cudaLimitDevRuntimePendingLaunchCount); }
  ~SlotLimitGuard() { EXPECT_EQ(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, before_), cudaSuccess); }
  SlotLimitGuard(const SlotLimitGuard&) = delete;
  SlotLimitGuard& operator=(const SlotLimitGuard&) = delete;

 private:
  size_t before_ = 0;
};

// Too few launch slots: launches fail, the kernels record it, the run returns with a WRONG verdict
// naming the device runtime's error. Nothing waits, so nothing hangs.
TEST(NestedLaunchFailureGpu, TooFewSlotsAreReportedNotHungOn) {
  WARPFOLD_REQUIRE_GPU();
  SlotLimitGuard restore_limit;
  if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048) != cudaSuccess) {
    cudaGetLastError();
    GTEST_SKIP() << "the driver does not let this process lower the launch-slot limit now";
  }
  size_t slots = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&slots, cudaLimitDevRuntimePendingLaunchCount), cudaSuccess);
  // nested's top grid tail-launches one child per block, and none of them can start before the
  // whole top grid has finished: with twice as many blocks as slots, launches should fail.
  const unsigned block = 32;
  const uint64_t n = (2 * uint64_t(slots) + 1024) * block;
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  lab::NestedCheck check;
  {
    const auto data = harness::random_ints(n, warpfold::testing::new_seed(), 1, 255);
    const lab::NestedWorkspace ws(data, lab::serial_sum(data.data(), n), block, stream);
    check = ws.run_and_check(lab::NestedVariant::nested);  // returns: that is the point
  }
  cudaStreamDestroy(stream);
  if (check.record.failures == 0) {
    EXPECT_TRUE(check.ok()) << check.verdict();
    GTEST_SKIP() << "the device accepted " << check.record.launches << " launches with " << slots
                 << " slots: no launch failure to observe";
  }
  EXPECT_FALSE(check.ok());
  EXPECT_NE(check.verdict().find("child launches failed (cuda"), std::string::npos) << check.verdict();
  RecordProperty("verdict", check.verdict());
}

}  // namespace
