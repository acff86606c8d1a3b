#include "harness/int_sum_check.hpp"
#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace warpfold::harness;

TEST(IntReference, SumInsideInt32DoesNotOverflow) {
  const auto ref = int_reference(INT32_MAX);
  EXPECT_FALSE(ref.overflows_int32);
  EXPECT_EQ(ref.int32_wrap, INT32_MAX);
  EXPECT_FALSE(int_reference(INT32_MIN).overflows_int32);
}

TEST(IntReference, OneMoreOverflowsAndWraps) {
  const auto ref = int_reference(int64_t(INT32_MAX) + 1);
  EXPECT_TRUE(ref.overflows_int32);
  EXPECT_EQ(ref.int32_wrap, INT32_MIN);
  EXPECT_TRUE(int_reference(int64_t(INT32_MIN) - 1).overflows_int32);
}

// 2^24 bytes-valued elements average 127.5 × 2^24 ≈ 2^31: the book's data sits on the edge.
TEST(IntReference, BookSizedDataOfMaximalBytesOverflows) {
  const std::vector<int> data(size_t(1) << 24, 255);
  const auto ref = int_reference(warpfold::lab::serial_sum(data.data(), data.size()));
  EXPECT_EQ(ref.exact, int64_t(255) << 24);
  EXPECT_TRUE(ref.overflows_int32);
  EXPECT_EQ(ref.int32_wrap, static_cast<int32_t>(uint32_t(255u << 24)));
  EXPECT_NE(describe_reference(ref).find("OVERFLOW"), std::string::npos);
}

TEST(IntReference, WrapMatchesWrappingAccumulation) {
  const auto data = random_ints(100000, fresh_seed(), INT32_MIN / 2, INT32_MAX / 2);
  int32_t wrapped = 0;
  for (int v : data) wrapped = warpfold::lab::wrapping_int32_plus{}(wrapped, v);
  EXPECT_EQ(int_reference(warpfold::lab::serial_sum(data.data(), data.size())).int32_wrap, wrapped);
}

TEST(Verdict, SaysOkOrWrongWithBothNumbers) {
  EXPECT_EQ(verdict(5, 5), "ok");
  EXPECT_EQ(verdict(5, -3), "WRONG expected 5 got -3");
}
