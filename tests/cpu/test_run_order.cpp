#include "harness/run_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

using warpfold::harness::round_order;

namespace {
size_t factorial(size_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }
}  // namespace

// Over n! consecutive rounds every order comes once: each run holds each position (n - 1)! times
// and directly follows each other run (n - 1)! times.
TEST(RoundOrder, EveryOrderOnceInEachCycle) {
  for (size_t n = 1; n <= 5; ++n) {
    const size_t cycle = factorial(n);
    for (size_t start : {size_t{0}, size_t{7}, cycle * 1000 + 3}) {
      std::set<std::vector<size_t>> seen;
      std::map<std::pair<size_t, size_t>, size_t> at_position, follows;
      for (size_t r = start; r < start + cycle; ++r) {
        const std::vector<size_t> order = round_order(n, r);
        ASSERT_EQ(order.size(), n);
        std::vector<size_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "round " << r << " is not a permutation";
        seen.insert(order);
        for (size_t i = 0; i < n; ++i) ++at_position[{order[i], i}];
        for (size_t i = 1; i < n; ++i) ++follows[{order[i - 1], order[i]}];
      }
      EXPECT_EQ(seen.size(), cycle) << "n=" << n;
      for (size_t run = 0; run < n; ++run)
        for (size_t pos = 0; pos < n; ++pos) EXPECT_EQ((at_position[{run, pos}]), factorial(n - 1)) << "n=" << n;
      for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
          if (a != b) EXPECT_EQ((follows[{a, b}]), factorial(n - 1)) << "n=" << n << " " << a << "->" << b;
    }
  }
}

TEST(RoundOrder, FirstRunChangesEveryRound) {
  for (size_t n = 2; n <= 5; ++n)
    for (size_t r = 0; r < 100; ++r) EXPECT_NE(round_order(n, r)[0], round_order(n, r + 1)[0]) << "n=" << n;
}

TEST(RoundOrder, RepeatsAfterACycle) {
  EXPECT_EQ(round_order(4, 5), round_order(4, 5 + 24));
  EXPECT_TRUE(round_order(0, 3).empty());
}
