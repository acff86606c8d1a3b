// The fuzz case generator: deterministic per seed (so a failure replays), always a valid case.
#include "fuzz/fuzz_case.hpp"
#include "fuzz/fuzz_run.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace warpfold::fuzz;

TEST(FuzzCase, SameSeedSameCase) {
  for (uint64_t s : {1ull, 42ull, 0xdeadbeefull}) {
    const FuzzCase a = make_case(s, 1 << 20, 11), b = make_case(s, 1 << 20, 11);
    EXPECT_EQ(describe(a), describe(b));
    EXPECT_EQ(a.n, b.n);
  }
  // A case seed depends on both the run's seed and the case's number.
  EXPECT_NE(case_seed(7, 3), case_seed(7, 4));
  EXPECT_NE(case_seed(7, 3), case_seed(8, 3));
}

TEST(FuzzCase, EveryCaseIsValidAndTheSpaceIsCovered) {
  std::set<std::string> ops, types;
  bool small = false, large = false, nan = false, inf = false, offset = false;
  for (uint64_t i = 0; i < 20000; ++i) {
    const FuzzCase c = make_case(case_seed(99, i), 1 << 22, 11);
    ASSERT_TRUE(supported(c.type, c.op)) << describe(c);
    ASSERT_LE(c.n, uint64_t(1) << 22);
    ASSERT_LT(c.offset * type_bytes(c.type), 16u);
    if (c.op == FuzzOp::ladder) {
      ASSERT_GE(c.n, 1u);
      ASSERT_TRUE(c.block >= 32 && c.block <= 1024 && (c.block & (c.block - 1)) == 0) << c.block;
      ASSERT_LT(c.ladder_kernel, 11u);
    }
    ASSERT_FALSE((c.nan || c.inf) && !is_floating(c.type));
    ops.insert(to_string(c.op));
    types.insert(to_string(c.type));
    small |= c.n <= 70;
    large |= c.n >= (1u << 20);
    nan |= c.nan;
    inf |= c.inf;
    offset |= c.offset > 0;
  }
  EXPECT_EQ(ops.size(), size_t(FuzzOp::ladder) + 1);
  EXPECT_EQ(types.size(), 10u);
  EXPECT_TRUE(small && large && nan && inf && offset);
}

// Segmented and axis cases come up for every pair that has them, with NaN, +inf and empty inputs,
// and never for another pair.
TEST(FuzzCase, SegmentedAndAxisLayoutsAreDrawn) {
  std::set<std::string> drawn;
  bool nan = false, inf = false, empty = false;
  for (uint64_t i = 0; i < 20000; ++i) {
    const FuzzCase c = make_case(case_seed(5, i), 1 << 22, 11);
    if (c.layout == FuzzLayout::full) continue;
    ASSERT_TRUE(segmentable(c.type, c.op)) << describe(c);
    drawn.insert(std::string(to_string(c.type)) + " " + to_string(c.op) + (c.layout == FuzzLayout::axis ? " axis" : " segmented"));
    nan |= c.nan;
    inf |= c.inf;
    empty |= c.n == 0;
  }
  EXPECT_EQ(drawn.size(), 8u) << "float sum and argmax, int32 and int8 sums, each segmented and along an axis";
  EXPECT_TRUE(nan && inf && empty);
  FuzzCase c;
  c.layout = FuzzLayout::axis;
  EXPECT_NE(describe(c).find("along an axis"), std::string::npos);
}

TEST(FuzzOptions, BadOptionsAreRejected) {
  FuzzOptions o;
  o.seconds = 0;
  EXPECT_THROW(run_fuzz(o), std::invalid_argument);
  o.seconds = 1;
  o.max_n = (uint64_t(1) << 28) + 1;
  EXPECT_THROW(run_fuzz(o), std::invalid_argument);
}
