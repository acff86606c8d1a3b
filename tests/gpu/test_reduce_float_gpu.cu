// warpfold::reduce on floating-point types: sums within a stated error bound of a long double
// reference, min/max/arg exact, NaN and infinities as documented, bitwise reproducible reruns.
#include "gpu/reduce_test_support.cuh"
#include "harness/device_buffer.hpp"

#include <algorithm>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

template <class Acc>
double unit_roundoff() { return std::numeric_limits<Acc>::epsilon() / 2; }

template <class T, class Acc>
void check_sum(bool compensated_mode) {
  WARPFOLD_REQUIRE_GPU();
  const auto bound = [&](uint64_t n, long double abs_sum) {
    return compensated_mode ? 4 * unit_roundoff<Acc>() * double(abs_sum) + 1e-300
                            : sum_bound(n, unit_roundoff<Acc>(), abs_sum);
  };
  check_sum_within_bound<T, Acc>(reduce_sizes(), bound,
                                 [&](void* t, size_t& b, const T* in, Acc* o, uint64_t n) {
                                   return compensated_mode ? compensated_sum(t, b, in, o, n, Acc(0.5))
                                                           : reduce(t, b, in, o, n, plus{}, Acc(0.5));
                                 });
}

TEST(ReduceFloat, FloatSumInFloat) { check_sum<float, float>(false); }
TEST(ReduceFloat, FloatSumInDouble) { check_sum<float, double>(false); }
TEST(ReduceFloat, DoubleSum) { check_sum<double, double>(false); }
TEST(ReduceFloat, HalfSumInFloat) { check_sum<__half, float>(false); }
TEST(ReduceFloat, Bfloat16SumInFloat) { check_sum<__nv_bfloat16, float>(false); }
TEST(ReduceFloat, CompensatedFloatSum) { check_sum<float, float>(true); }
TEST(ReduceFloat, CompensatedDoubleSum) { check_sum<double, double>(true); }

// Sums whose every partial is exact (exact_sum_data): whatever the fold order, the result must
// be the exact total, bit for bit, so any element dropped, added twice or read past either end
// shows, as the error bounds above cannot promise for large n. Plain and compensated.
template <class T, class Acc, class Call>
void check_exact_sum(const std::vector<uint64_t>& sizes, Call call) {
  WARPFOLD_REQUIRE_GPU();
  check_exact_reduce<T>(sizes, Acc(0.5), [](Acc a, Acc b) { return a + b; }, exact_sum_data<T>(), call);
}

template <class T, class Acc>
void check_exact_sums() {
  check_exact_sum<T, Acc>(reduce_sizes(), [](void* t, size_t& b, const T* in, Acc* o, uint64_t n) {
    return reduce(t, b, in, o, n, plus{}, Acc(0.5));
  });
  check_exact_sum<T, Acc>(reduce_sizes(), [](void* t, size_t& b, const T* in, Acc* o, uint64_t n) {
    return compensated_sum(t, b, in, o, n, Acc(0.5));
  });
}

TEST(ReduceFloat, ExactSumsFloat) { check_exact_sums<float, float>(); }
TEST(ReduceFloat, ExactSumsFloatInDouble) { check_exact_sums<float, double>(); }
TEST(ReduceFloat, ExactSumsDouble) { check_exact_sums<double, double>(); }
TEST(ReduceFloat, ExactSumsHalfInFloat) { check_exact_sums<__half, float>(); }
TEST(ReduceFloat, ExactSumsBfloat16InFloat) { check_exact_sums<__nv_bfloat16, float>(); }

// The plain sum past 4 MiB too, where the wide kernel reads 32 KiB tiles.
template <class T>
void check_exact_large_sum() {
  std::vector<uint64_t> sizes;
  for (uint64_t n : {(uint64_t(1) << 22) + 3, (uint64_t(1) << 23) + 5}) {
    if (n <= max_test_n()) sizes.push_back(n);
  }
  check_exact_sum<T, T>(sizes, [](void* t, size_t& b, const T* in, T* o, uint64_t n) {
    return reduce(t, b, in, o, n, plus{}, T(0.5));
  });
}

TEST(ReduceFloat, ExactSumsPastFourMiBFloat) { check_exact_large_sum<float>(); }
TEST(ReduceFloat, ExactSumsPastFourMiBDouble) { check_exact_large_sum<double>(); }

// Accumulating in half or bfloat16 itself: exact while the sums stay where the type holds every
// quarter (below 512 for half, 64 for bfloat16), so only the sizes that keep them there.
template <class T>
void check_narrow_accumulator_sum(uint64_t max_n) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    if (n > max_n) continue;
    const uint64_t seed = new_seed();
    const auto data = exact_sum_data<T>()(n, seed);
    double expected = 0.5;
    for (const T& x : data) expected += to_double(x);
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      const T got = run_two_phase<T>([&](void* t, size_t& b, T* o) {
        return reduce(t, b, buf.get(), o, n, plus{}, from_double<T>(0.5));
      });
      ASSERT_EQ(to_double(got), expected) << where(n, off, seed);
    }
  }
}

TEST(ReduceFloat, HalfSumInHalf) { check_narrow_accumulator_sum<__half>(600); }
TEST(ReduceFloat, Bfloat16SumInBfloat16) { check_narrow_accumulator_sum<__nv_bfloat16>(80); }

// The compensated sum's error does not grow with n: sum 2^22 copies of a value not exact in float.
TEST(ReduceFloat, CompensatedSumBeatsPlainSumOnLongInputs) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = 1u << 22;
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  std::vector<float> data = random_values<float>(n, new_seed(), 0.09, 0.11);
  long double ref = 0;
  for (float x : data) ref += x;
  offset_buffer<float> buf(data, 0);
  const float plain = reduce_value(buf.get(), n, plus{}, 0.0f);
  const float comp = run_two_phase<float>([&](void* t, size_t& b, float* o) { return compensated_sum(t, b, buf.get(), o, n, 0.0f); });
  const double plain_err = std::fabs(double(plain) - double(ref)), comp_err = std::fabs(double(comp) - double(ref));
  EXPECT_LE(comp_err, 2 * unit_roundoff<float>() * double(ref)) << "compensated " << comp << " vs " << double(ref);
  EXPECT_LE(comp_err, plain_err);
}

template <class T>
void check_min_max_arg() {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    if (n == 0) continue;
    const uint64_t seed = new_seed();
    auto data = random_values<T>(n, seed, -8.0, 8.0);
    // Every other seed rounds the values to quarters (65 of them), so that float and double data
    // meet ties too and argmin/argmax must name the first of several equal extremes.
    if (seed % 2) {
      for (auto& x : data) x = from_double<T>(std::round(to_double(x) * 4) / 4);
    }
    uint64_t imin = 0, imax = 0;
    for (uint64_t i = 1; i < n; ++i) {
      if (to_double(data[i]) < to_double(data[imin])) imin = i;
      if (to_double(data[i]) > to_double(data[imax])) imax = i;
    }
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      const T mn = run_two_phase<T>([&](void* t, size_t& b, T* o) { return reduce(t, b, buf.get(), o, n, minimum{}, from_double<T>(100)); });
      const T mx = run_two_phase<T>([&](void* t, size_t& b, T* o) { return reduce(t, b, buf.get(), o, n, maximum{}, from_double<T>(-100)); });
      ASSERT_EQ(to_double(mn), to_double(data[imin])) << where(n, off, seed);
      ASSERT_EQ(to_double(mx), to_double(data[imax])) << where(n, off, seed);
      const auto amin = run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) { return argmin(t, b, buf.get(), o, n); });
      const auto amax = run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) { return argmax(t, b, buf.get(), o, n); });
      ASSERT_EQ(amin.index, imin) << where(n, off, seed);
      ASSERT_EQ(amax.index, imax) << where(n, off, seed);
      ASSERT_TRUE(bitwise_equal(amin.value, data[imin])) << where(n, off, seed);
      ASSERT_TRUE(bitwise_equal(amax.value, data[imax])) << where(n, off, seed);
    }
  }
}

TEST(ReduceFloat, MinMaxArgFloat) { check_min_max_arg<float>(); }
TEST(ReduceFloat, MinMaxArgDouble) { check_min_max_arg<double>(); }
TEST(ReduceFloat, MinMaxArgHalf) { check_min_max_arg<__half>(); }
TEST(ReduceFloat, MinMaxArgBfloat16) { check_min_max_arg<__nv_bfloat16>(); }

// Products of values near 1 (every type's own rounding of 0.999..1.001), accumulated in Acc.
template <class T, class Acc>
void check_product_near_one() {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    const auto data = random_values<T>(n, seed, 0.999, 1.001);
    long double ref = 1;
    for (const T& x : data) ref *= to_double(x);
    const size_t off = n % element_offsets<T>().size();
    offset_buffer<T> buf(data, off);
    const Acc got = reduce_value(buf.get(), n, multiplies{}, Acc(1));
    // Each of the n multiplications rounds once whatever the order: |error| ≤ n·u·|product|.
    ASSERT_NEAR(double(got), double(ref), double(n + 1) * unit_roundoff<Acc>() * std::fabs(double(ref)))
        << where(n, off, seed);
  }
}

TEST(ReduceFloat, ProductNearOne) {
  check_product_near_one<double, double>();
  check_product_near_one<float, double>();
  check_product_near_one<float, float>();
  check_product_near_one<__half, float>();
  check_product_near_one<__nv_bfloat16, float>();
}

// A NaN anywhere makes sum, min and max NaN, and argmin and argmax point at the first NaN; an
// infinity wins max and argmax, and +inf with -inf sums to NaN. For every floating type, so that
// both forms of the operators are covered: float's min.NaN / max.NaN instructions and the
// compare-and-select of double, half and bfloat16. Sums accumulate in Acc.
template <class T, class Acc>
void check_nan_and_infinities() {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = 100003;
  const uint64_t seed = new_seed();
  const T nan = from_double<T>(std::numeric_limits<double>::quiet_NaN());
  const T inf = from_double<T>(std::numeric_limits<double>::infinity());
  const T zero = from_double<T>(0);
  const auto is_nan = [](auto x) { return std::isnan(to_double(x)); };
  auto data = random_values<T>(n, seed, -1, 1);
  std::mt19937_64 gen(seed);
  const uint64_t first_nan = gen() % (n / 2), second_nan = n / 2 + gen() % (n / 2);
  data[first_nan] = data[second_nan] = nan;
  offset_buffer<T> buf(data, 1);
  const std::string at = where(n, 1, seed);
  EXPECT_TRUE(is_nan(reduce_value(buf.get(), n, plus{}, Acc(0)))) << at;
  EXPECT_TRUE(is_nan(reduce_value(buf.get(), n, minimum{}, zero))) << at;
  EXPECT_TRUE(is_nan(reduce_value(buf.get(), n, maximum{}, zero))) << at;
  const auto amin = run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) { return argmin(t, b, buf.get(), o, n); });
  const auto amax = run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) { return argmax(t, b, buf.get(), o, n); });
  EXPECT_EQ(amin.index, first_nan) << at;
  EXPECT_EQ(amax.index, first_nan) << at;
  EXPECT_TRUE(is_nan(amin.value) && is_nan(amax.value)) << at;

  auto with_inf = random_values<T>(n, seed + 1, -1, 1);
  const uint64_t plus_inf = gen() % n, minus_inf = (plus_inf + 1 + gen() % (n - 1)) % n;  // two places
  with_inf[plus_inf] = inf;
  offset_buffer<T> ibuf(with_inf, 0);
  const std::string at_inf = where(n, 0, seed + 1);
  EXPECT_EQ(to_double(reduce_value(ibuf.get(), n, plus{}, Acc(0))), std::numeric_limits<double>::infinity()) << at_inf;
  EXPECT_EQ(to_double(reduce_value(ibuf.get(), n, maximum{}, zero)), std::numeric_limits<double>::infinity()) << at_inf;
  EXPECT_EQ(run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) { return argmax(t, b, ibuf.get(), o, n); }).index,
            plus_inf) << at_inf;
  with_inf[minus_inf] = from_double<T>(-std::numeric_limits<double>::infinity());
  offset_buffer<T> ibuf2(with_inf, 0);
  EXPECT_TRUE(is_nan(reduce_value(ibuf2.get(), n, plus{}, Acc(0)))) << at_inf;
  EXPECT_EQ(to_double(reduce_value(ibuf2.get(), n, minimum{}, zero)), -std::numeric_limits<double>::infinity()) << at_inf;
}

TEST(ReduceFloat, NaNAndInfinitiesBehaveAsDocumentedFloat) { check_nan_and_infinities<float, float>(); }
TEST(ReduceFloat, NaNAndInfinitiesBehaveAsDocumentedDouble) { check_nan_and_infinities<double, double>(); }
TEST(ReduceFloat, NaNAndInfinitiesBehaveAsDocumentedHalf) { check_nan_and_infinities<__half, float>(); }
TEST(ReduceFloat, NaNAndInfinitiesBehaveAsDocumentedBfloat16) { check_nan_and_infinities<__nv_bfloat16, float>(); }

// warpfold::square computes in the accumulator type: the square of a float is exact in double,
// so only the sum rounds (the fold's bound with u_d). A square computed in float would round
// each term by up to u_f·x², far past that bound. On exact_sum_data every sum is exact too, so
// there the result must be exact.
TEST(ReduceFloat, SumOfSquaresInDouble) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    for (bool exact : {false, true}) {
      const uint64_t seed = new_seed();
      const auto data = exact ? exact_sum_data<float>()(n, seed) : random_values<float>(n, seed, -2, 2);
      long double ref = 0;
      for (float x : data) ref += (long double)x * x;
      offset_buffer<float> buf(data, 3);
      const double got = run_two_phase<double>([&](void* t, size_t& b, double* o) {
        return transform_reduce(t, b, buf.get(), o, n, plus{}, square{}, 0.0);
      });
      const double limit = exact ? 0.0 : sum_bound(n, unit_roundoff<double>(), ref);
      ASSERT_LE(std::fabs(got - double(ref)), limit) << where(n, 3, seed) << (exact ? ", exact data" : "");
    }
  }
}

// A user transform with another operator: the largest magnitude, exact.
struct magnitude {
  __host__ __device__ float operator()(float x) const { return x < 0 ? -x : x; }
};

TEST(ReduceFloat, LargestMagnitudeFusedIntoTheLoad) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    const auto data = random_values<float>(n, seed, -1000, 1000);
    float expected = 0;
    for (float x : data) expected = std::max(expected, magnitude{}(x));
    for (size_t off : element_offsets<float>()) {
      offset_buffer<float> buf(data, off);
      const float got = run_two_phase<float>([&](void* t, size_t& b, float* o) {
        return transform_reduce(t, b, buf.get(), o, n, maximum{}, magnitude{}, 0.0f);
      });
      ASSERT_EQ(got, expected) << where(n, off, seed);
    }
  }
}

// A user-defined accumulator: the range [lo, hi] of the data in one pass (transform x -> [x, x],
// the operator their union). 8 bytes for float (the kernels with a register budget: narrow, wide
// and bulk), 16 for double (the narrow kernel, partials of four words). Exact.
template <class F>
struct value_range {
  F lo, hi;
};
template <class F>
struct to_range {
  __host__ __device__ value_range<F> operator()(F x) const { return {x, x}; }
};
struct range_union {
  template <class F>
  __host__ __device__ value_range<F> operator()(const value_range<F>& a, const value_range<F>& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};

template <class F>
void check_value_range() {
  WARPFOLD_REQUIRE_GPU();
  const value_range<F> init{F(2000), F(-2000)};  // outside the data: n = 0 gives it back
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    const auto data = random_values<F>(n, seed, -1000, 1000);
    value_range<F> expected = init;
    for (F x : data) expected = range_union{}(expected, to_range<F>{}(x));
    for (size_t off : element_offsets<F>()) {
      offset_buffer<F> buf(data, off);
      const auto got = run_two_phase<value_range<F>>([&](void* t, size_t& b, value_range<F>* o) {
        return transform_reduce(t, b, buf.get(), o, n, range_union{}, to_range<F>{}, init);
      });
      ASSERT_EQ(got.lo, expected.lo) << where(n, off, seed);
      ASSERT_EQ(got.hi, expected.hi) << where(n, off, seed);
    }
  }
}

TEST(ReduceFloat, UserAccumulatorFloatRange) { check_value_range<float>(); }
TEST(ReduceFloat, UserAccumulatorDoubleRange) { check_value_range<double>(); }

// warp::reduce_down_partial<Width> starts its shuffles at Width / 2 (block totals, the combine of
// up to 8 or 16 partials). For every count of valid lanes and every width that covers it, lane
// 0's result must be bitwise that of the full 32-lane form, on fresh random sums.
template <int Width>
__global__ void warp_partial_sums(const double* in, int valid, double* out) {
  const double total = warp::reduce_down_partial<Width>(in[threadIdx.x], plus{}, valid);
  if (threadIdx.x == 0) *out = total;
}

TEST(ReduceFloat, NarrowShuffleWidthFoldsAsTheFullWarp) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  const auto values = random_values<double>(32, seed, -1e6, 1e6);
  harness::DeviceBuffer<double> in(32), out(1);
  WARPFOLD_CUDA_CHECK(cudaMemcpy(in.get(), values.data(), 32 * sizeof(double), cudaMemcpyHostToDevice));
  const auto run = [&](auto kernel, int valid) {
    kernel<<<1, 32>>>(in.get(), valid, out.get());
    WARPFOLD_CUDA_CHECK(cudaGetLastError());
    double result = 0;
    WARPFOLD_CUDA_CHECK(cudaMemcpy(&result, out.get(), sizeof(double), cudaMemcpyDeviceToHost));
    return result;
  };
  for (int valid = 1; valid <= 32; ++valid) {
    const double full = run(warp_partial_sums<32>, valid);
    long double exact = 0;
    for (int l = 0; l < valid; ++l) exact += values[size_t(l)];
    ASSERT_NEAR(double(full), double(exact), 1e-9 * 32 * 1e6) << "valid " << valid << ", seed " << seed;
    if (valid <= 16) ASSERT_TRUE(bitwise_equal(run(warp_partial_sums<16>, valid), full)) << valid << " " << seed;
    if (valid <= 8) ASSERT_TRUE(bitwise_equal(run(warp_partial_sums<8>, valid), full)) << valid << " " << seed;
    if (valid <= 4) ASSERT_TRUE(bitwise_equal(run(warp_partial_sums<4>, valid), full)) << valid << " " << seed;
    if (valid <= 2) ASSERT_TRUE(bitwise_equal(run(warp_partial_sums<2>, valid), full)) << valid << " " << seed;
  }
}

}  // namespace
