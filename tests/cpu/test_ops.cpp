// The operators' and transforms' documented behaviour on the host (ops.cuh, detail/reduce_forms.cuh): min and max give NaN wherever a NaN
// sits, order infinities as numbers, and keep the left operand on ties; integers compare plainly.
// (On the device float min/max are min.NaN/max.NaN; the GPU reduce tests check those results.)
#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/ops.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

using namespace warpfold;

namespace {

template <class T>
void expect_nan_wins(T number) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  EXPECT_TRUE(std::isnan(maximum{}(nan, number)));
  EXPECT_TRUE(std::isnan(maximum{}(number, nan)));
  EXPECT_TRUE(std::isnan(minimum{}(nan, number)));
  EXPECT_TRUE(std::isnan(minimum{}(number, nan)));
  EXPECT_TRUE(std::isnan(maximum{}(nan, nan)));
  EXPECT_TRUE(std::isnan(minimum{}(nan, nan)));
}

}  // namespace

TEST(Ops, NaNWinsMinAndMaxFromEitherSide) {
  for (float x : {0.0f, -1.5f, 3.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    expect_nan_wins(x);
  }
  for (double x : {0.0, -1.5, 3.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    expect_nan_wins(x);
  }
}

TEST(Ops, NumbersAndInfinitiesCompareAsNumbers) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(maximum{}(-2.0, 5.0), 5.0);
  EXPECT_EQ(maximum{}(5.0, -2.0), 5.0);
  EXPECT_EQ(minimum{}(-2.0, 5.0), -2.0);
  EXPECT_EQ(minimum{}(5.0, -2.0), -2.0);
  EXPECT_EQ(maximum{}(inf, 1e308), inf);
  EXPECT_EQ(minimum{}(-inf, -1e308), -inf);
  EXPECT_EQ(maximum{}(1.0f, -std::numeric_limits<float>::infinity()), 1.0f);
}

TEST(Ops, TiesKeepTheLeftOperand) {
  // -0 and +0 are equal: the fold keeps what it has, so the order of the fold decides the sign.
  EXPECT_TRUE(std::signbit(maximum{}(-0.0, 0.0)));
  EXPECT_FALSE(std::signbit(maximum{}(0.0, -0.0)));
  EXPECT_TRUE(std::signbit(minimum{}(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(minimum{}(0.0f, -0.0f)));
}

TEST(Ops, IntegersComparePlainly) {
  EXPECT_EQ(maximum{}(int32_t(-7), int32_t(3)), 3);
  EXPECT_EQ(minimum{}(int32_t(-7), int32_t(3)), -7);
  EXPECT_EQ(maximum{}(std::numeric_limits<int64_t>::min(), int64_t(0)), 0);
  EXPECT_EQ(minimum{}(std::numeric_limits<uint32_t>::max(), uint32_t(1)), 1u);
}

// The orderings behind arg_min / arg_max (and min / max): "a strictly before b, NaN first", for
// every pair of numbers, infinities, signed zeros and NaN, against the definition spelled out.
TEST(Ops, NaNFirstOrderingsMatchTheirDefinition) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double values[] = {-inf, -2.5, -0.0, 0.0, 1.0, inf, nan};
  for (double a : values) {
    for (double b : values) {
      const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
      const bool less = a_nan ? !b_nan : (!b_nan && a < b);
      const bool greater = a_nan ? !b_nan : (!b_nan && a > b);
      EXPECT_EQ(detail::less_nan_first(a, b), less) << a << " " << b;
      EXPECT_EQ(detail::greater_nan_first(a, b), greater) << a << " " << b;
      EXPECT_EQ(detail::less_nan_first(float(a), float(b)), less) << a << " " << b;
      EXPECT_EQ(detail::greater_nan_first(float(a), float(b)), greater) << a << " " << b;
      // arg_min / arg_max: the value that orders first, the first index among equals.
      const key_value<double> ka{a, 5}, kb{b, 2};
      EXPECT_EQ(arg_min{}(ka, kb).index, less ? 5u : 2u);  // b first, or a tie: index 2
      EXPECT_EQ(arg_max{}(ka, kb).index, greater ? 5u : 2u);
    }
  }
}

TEST(Ops, AbsoluteGivesMagnitudes) {
  EXPECT_EQ(absolute{}(-2.5), 2.5);
  EXPECT_EQ(absolute{}(2.5f), 2.5f);
  EXPECT_FALSE(std::signbit(absolute{}(-0.0)));
  EXPECT_FALSE(std::signbit(absolute{}(0.0f)));
  EXPECT_TRUE(std::isnan(absolute{}(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(absolute{}(-std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_EQ(absolute{}(int64_t(-7)), 7);
  EXPECT_EQ(absolute{}(uint32_t(7)), 7u);
}

// Transforms: a transform of the caller's receives the input element (as in CUB); the built-ins
// receive it converted to the accumulator type and compute there (reduce_forms.cuh).
namespace {
struct callers_transform {
  template <class X>
  int64_t operator()(X x) const {
    static_assert(std::is_same_v<X, int32_t>, "a transform of the caller's receives the input element");
    return x;
  }
};
}  // namespace

static_assert(detail::computes_in_accumulator<square> && detail::computes_in_accumulator<absolute>);
static_assert(!detail::computes_in_accumulator<identity> && !detail::computes_in_accumulator<callers_transform>);
static_assert(std::is_same_v<decltype(detail::transform_argument<int64_t, square>(int32_t{})), int64_t>);
static_assert(std::is_same_v<decltype(detail::transform_argument<double, absolute>(1.0f)), double>);
static_assert(std::is_same_v<decltype(detail::transform_argument<int64_t, callers_transform>(int32_t{})), const int32_t&>);

TEST(Transforms, BuiltInsComputeInTheAccumulatorType) {
  // 3·10^6 squared and |INT32_MIN| = 2^31 do not fit int32; in int64 they are exact.
  EXPECT_EQ((detail::convert<square>{}.lift<int64_t>(int32_t(3000000), 0)), int64_t(9000000000000));
  EXPECT_EQ((detail::convert<absolute>{}.lift<int64_t>(std::numeric_limits<int32_t>::min(), 0)), int64_t(1) << 31);
  // The square of a float is exact in double: (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46, which float rounds.
  EXPECT_EQ((detail::convert<square>{}.lift<double>(1.0f + 0x1p-23f, 0)), 1.0 + 0x1p-22 + 0x1p-46);
}

TEST(Transforms, CallersTransformsReceiveTheElement) {
  EXPECT_EQ((detail::convert<callers_transform>{}.lift<int64_t>(int32_t(-7), 0)), -7);
  EXPECT_EQ((detail::convert<identity>{}.lift<double>(0.1f, 0)), double(0.1f));  // converted after, not before
}
