#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace warpfold;

namespace {

std::vector<int64_t> widen(const std::vector<int>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(RecursiveReduce, OneElementIsItself) {
  std::vector<int64_t> v{42};
  EXPECT_EQ(lab::recursive_reduce(v.data(), v.size(), std::plus<>{}), 42);
}

// Odd sizes are where the book's version drops the last element; every size up to 300 covers odd,
// even, powers of two and their neighbours.
TEST(RecursiveReduce, MatchesSerialSumForEverySizeUpTo300) {
  const uint64_t seed = harness::fresh_seed();
  for (size_t n = 1; n <= 300; ++n) {
    const auto data = harness::random_ints(n, seed + n, -1000, 1000);
    auto work = widen(data);
    EXPECT_EQ(lab::recursive_reduce(work.data(), n, std::plus<>{}), lab::serial_sum(data.data(), n))
        << "n = " << n << ", seed " << seed + n;
  }
}

TEST(RecursiveReduce, OddSizeKeepsTheUnpairedLastElement) {
  std::vector<int64_t> v{1, 2, 4, 8, 16, 32, 64};  // 7 elements: the book would lose 64
  EXPECT_EQ(lab::recursive_reduce(v.data(), v.size(), std::plus<>{}), 127);
}

TEST(RecursiveReduce, WorksForOtherAssociativeOps) {
  const auto data = harness::random_ints(1001, harness::fresh_seed(), -50000, 50000);
  auto work = widen(data);
  auto max_op = [](int64_t a, int64_t b) { return std::max(a, b); };
  EXPECT_EQ(lab::recursive_reduce(work.data(), work.size(), max_op), *std::max_element(data.begin(), data.end()));
}

TEST(RecursiveReduce, Int32WrapsLikeTheHardware) {
  std::vector<int32_t> v{INT32_MAX, 1, 0};
  EXPECT_EQ(lab::recursive_reduce(v.data(), v.size(), lab::wrapping_int32_plus{}), INT32_MIN);
}

TEST(RecursiveReduce, EmptyInputIsRejected) {
  std::vector<int64_t> v;
  EXPECT_THROW(lab::recursive_reduce(v.data(), 0, std::plus<>{}), std::invalid_argument);
}
