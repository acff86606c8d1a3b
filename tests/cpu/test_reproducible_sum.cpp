// warpfold::reproducible_sum's accumulator (detail/binned.cuh) on the host: bitwise ReproBLAS's
// result (the port in reference/reproblas.hpp, itself checked against ReproBLAS's recorded
// sums) whatever the order of the elements, their split into pieces, the way each piece is folded
// (the kernel's op(acc, lift(x)) or accumulate) and the merge tree; merging associative and
// commutative bit for bit; within ReproBLAS's error bound of the exact sum; NaN and infinities as
// documented. The GPU tests hold the device to the same bits.
#include "reference/exact_sum.hpp"
#include "reference/reproblas.hpp"
#include "reference/reproducible_support.hpp"

#include <warpfold/detail/binned.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace warpfold::testing;
using warpfold::detail::binned_accumulator;
using warpfold::detail::binned_float_t;
using warpfold::detail::binned_plus;
using warpfold::detail::binned_sum_form;

namespace {

// ReproBLAS's constants, as binned.h defines them for the default parameters.
static_assert(warpfold::detail::binned_params<float>::endurance == 512);
static_assert(warpfold::detail::binned_params<double>::endurance == 2048);
static_assert(warpfold::detail::binned_params<float>::max_index == 20);
static_assert(warpfold::detail::binned_params<double>::max_index == 51);
static_assert(warpfold::detail::binned_params<float>::capacity == 512ull * ((1ull << 23) - 1));

uint64_t fresh_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

// The library's accumulator, canonical, against a reference binned sum: primaries and carries.
template <class F>
void expect_same_state(const binned_accumulator<F>& library, const reproblas::binned<F>& reference, const std::string& at) {
  const auto c = warpfold::detail::binned_canonical(library);
  for (int j = 0; j < reproblas::kFold; ++j) {
    EXPECT_TRUE(same_bits(c.primary[j], reference.pri[j]))
        << at << ": primary " << j << " " << bits_of(c.primary[j]) << ", ReproBLAS " << bits_of(reference.pri[j]);
    EXPECT_TRUE(same_bits(c.carry[j], reference.car[j]))
        << at << ": carry " << j << " " << bits_of(c.carry[j]) << ", ReproBLAS " << bits_of(reference.car[j]);
  }
}

// Every element through the form's accumulate, in order, from the empty accumulator.
template <class T>
binned_accumulator<binned_float_t<T>> accumulate_all(const std::vector<T>& data) {
  binned_accumulator<binned_float_t<T>> acc{};
  for (size_t i = 0; i < data.size(); ++i) binned_sum_form<binned_float_t<T>>{}.accumulate(acc, data[i], i);
  return acc;
}

// The library's sum as a grid might fold it: the elements in a random order, cut into a random
// number of pieces (some empty), each folded from the empty accumulator by accumulate or by the
// kernel's op(acc, lift(x)) from its first element, the pieces merged in a random tree.
template <class T>
binned_accumulator<binned_float_t<T>> fold_arranged(std::vector<T> data, std::mt19937_64& gen) {
  using F = binned_float_t<T>;
  using acc_t = binned_accumulator<F>;
  const binned_sum_form<F> form;
  if (gen() % 4) std::shuffle(data.begin(), data.end(), gen);
  std::vector<size_t> cuts{0, data.size()};
  for (uint64_t k = gen() % 9; k > 0; --k) cuts.push_back(data.empty() ? 0 : gen() % (data.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<acc_t> pieces;
  for (size_t p = 0; p + 1 < cuts.size(); ++p) {
    acc_t acc{};
    const bool by_lift = gen() % 2;
    for (size_t i = cuts[p]; i < cuts[p + 1]; ++i) {
      if (!by_lift) form.accumulate(acc, data[i], i);
      else acc = i == cuts[p] ? form.template lift<acc_t>(data[i], i) : binned_plus{}(acc, form.template lift<acc_t>(data[i], i));
    }
    pieces.push_back(acc);
  }
  return merge_in_random_tree(pieces, gen);
}

template <class T>
binned_float_t<T> finish(const binned_accumulator<binned_float_t<T>>& total, bool has_total) {
  using F = binned_float_t<T>;
  return binned_sum_form<F>{}.finish(binned_plus{}, binned_accumulator<F>{}, total, has_total);
}

// ReproBLAS's own sums (tests/data/reproblas/recorded_sums.txt): the port, element by element and
// in ReproBLAS's blocks (binnedBLAS_smssum, for finite sums), and the library, in order and in
// random arrangements, give its binned sum and its result, bit for bit.
template <class F>
void check_recorded_case(std::istringstream& line, const std::string& kind) {
  uint64_t n = 0, seed = 0;
  line >> n >> seed;
  std::array<F, 2 * reproblas::kFold + 1> recorded{};
  for (F& value : recorded) {
    std::string hex;
    line >> hex;
    const auto bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>(std::stoull(hex, nullptr, 16));
    std::memcpy(&value, &bits, sizeof(F));
  }
  ASSERT_TRUE(line) << "a malformed line";
  reproblas::binned<F> expected;
  std::copy(recorded.begin() + 1, recorded.begin() + 1 + reproblas::kFold, expected.pri.begin());
  std::copy(recorded.begin() + 1 + reproblas::kFold, recorded.end(), expected.car.begin());
  const std::string at = std::string(sizeof(F) == 4 ? "float " : "double ") + kind + ", n = " + std::to_string(n);
  const auto data = recorded_case_values<F>(kind, n, seed);

  const auto one_by_one = reproblas::add_each(data);
  EXPECT_EQ(one_by_one.pri, expected.pri) << at;
  EXPECT_EQ(one_by_one.car, expected.car) << at;
  EXPECT_TRUE(same_bits(reproblas::convert(one_by_one), recorded[0])) << at << ": " << bits_of(reproblas::convert(one_by_one));
  if (std::isfinite(recorded[0])) {
    reproblas::binned<F> blocked;
    reproblas::sum(data.data(), data.size(), blocked);
    EXPECT_EQ(blocked.pri, expected.pri) << at << " (blocks)";
    EXPECT_EQ(blocked.car, expected.car) << at << " (blocks)";
  }

  const auto library = accumulate_all(data);
  expect_same_state(library, expected, at);
  EXPECT_TRUE(same_bits(warpfold::detail::binned_value(library), recorded[0]))
      << at << ": " << bits_of(warpfold::detail::binned_value(library)) << ", ReproBLAS " << bits_of(recorded[0]);
  std::mt19937_64 gen(seed);
  const F arranged = finish<F>(fold_arranged(data, gen), true);
  EXPECT_TRUE(same_bits(arranged, recorded[0])) << at << ", arranged: " << bits_of(arranged);
}

TEST(ReproducibleSumReference, MatchesReproBLASItself) {
  const std::string path = std::string(WARPFOLD_TEST_DATA_DIR) + "/reproblas/recorded_sums.txt";
  std::ifstream file(path);
  ASSERT_TRUE(file) << "cannot open " << path;
  int cases = 0;
  for (std::string text; std::getline(file, text);) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream line(text);
    std::string type, kind;
    line >> type >> kind;
    if (type == "float") check_recorded_case<float>(line, kind);
    else if (type == "double") check_recorded_case<double>(line, kind);
    else FAIL() << "unknown type in: " << text;
    ++cases;
  }
  EXPECT_EQ(cases, 42);
}

const std::vector<size_t>& awkward_sizes() {
  // Around the endurance of float (512) and double (2048), past several of either.
  static const std::vector<size_t> sizes{0, 1, 2, 3, 7, 511, 512, 513, 1023, 1025, 2047, 2048, 2049, 4097, 20011};
  return sizes;
}

// Every kind of data at every size, three arrangements each: the result bits and the canonical
// binned sum are ReproBLAS's for the elements in their original order.
template <class T>
void check_arrangements() {
  for (sum_data kind : every_sum_data()) {
    for (size_t n : awkward_sizes()) {
      const uint64_t seed = fresh_seed();
      const auto data = make_sum_data<T>(kind, n, seed);
      const auto expected_binned = reference_binned(data);
      const auto expected = reproblas::convert(expected_binned);
      std::mt19937_64 gen(seed);
      for (int arrangement = 0; arrangement < 3; ++arrangement) {
        const std::string at = name_of(kind) + ", n = " + std::to_string(n) + ", seed " + std::to_string(seed) +
                               ", arrangement " + std::to_string(arrangement);
        const auto total = fold_arranged(data, gen);
        const auto got = finish<T>(total, n > 0);
        ASSERT_TRUE(same_bits(got, expected)) << at << ": " << bits_of(got) << ", ReproBLAS " << bits_of(expected);
        expect_same_state(total, expected_binned, at);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(ReproducibleSum, FloatMatchesReproBLASInAnyArrangement) { check_arrangements<float>(); }
TEST(ReproducibleSum, DoubleMatchesReproBLASInAnyArrangement) { check_arrangements<double>(); }
TEST(ReproducibleSum, HalfIntoFloatMatchesReproBLASInAnyArrangement) { check_arrangements<__half>(); }
TEST(ReproducibleSum, Bfloat16IntoFloatMatchesReproBLASInAnyArrangement) { check_arrangements<__nv_bfloat16>(); }

// Merging is associative and commutative bit for bit, every byte of the result (the partials
// travel as bytes), from accumulators in any state: pending deposits, holding one element, empty.
template <class F>
void check_merge_algebra() {
  for (sum_data kind : every_sum_data()) {
    const uint64_t seed = fresh_seed();
    const auto data = make_sum_data<F>(kind, 3000, seed);
    std::mt19937_64 gen(seed);
    const size_t cut1 = gen() % 3000, cut2 = cut1 + gen() % (3000 - cut1);
    const auto piece = [&](size_t from, size_t to) {
      return accumulate_all(std::vector<F>(data.begin() + from, data.begin() + to));
    };
    const binned_accumulator<F> a = piece(0, cut1), b = piece(cut1, cut2), c = piece(cut2, 3000);
    const auto holding = warpfold::detail::binned_holding(data[gen() % 3000]);
    const binned_plus op;
    const std::string at = name_of(kind) + ", seed " + std::to_string(seed);
    const auto same = [](const binned_accumulator<F>& x, const binned_accumulator<F>& y) {
      return std::memcmp(&x, &y, sizeof(x)) == 0;
    };
    EXPECT_TRUE(same(op(a, b), op(b, a))) << at;
    EXPECT_TRUE(same(op(op(a, b), c), op(a, op(b, c)))) << at;
    EXPECT_TRUE(same(op(op(a, c), b), op(op(c, b), a))) << at;
    EXPECT_TRUE(same(op(a, binned_accumulator<F>{}), warpfold::detail::binned_canonical(a))) << at;
    EXPECT_TRUE(same(warpfold::detail::binned_merge(a, holding), warpfold::detail::binned_merge(holding, a))) << at;
  }
}

TEST(ReproducibleSum, MergeIsAssociativeAndCommutativeBitwiseFloat) { check_merge_algebra<float>(); }
TEST(ReproducibleSum, MergeIsAssociativeAndCommutativeBitwiseDouble) { check_merge_algebra<double>(); }

// Within ReproBLAS's bound of the exact sum (binned_sbbound: n · 2^(-2W) · max|x| + 7ε|result|
// to first order), the exact sum held as a wide fixed-point integer; plus half a unit of the
// lowest bin per element, which that bound's underflow term leaves out: the lowest bin's unit is
// 2^-144 (float) or 2^-1055 (double), so the bits of subnormals below it round away (up to
// 2^-145 for one float subnormal, where the bound allows 2^-153).
template <class F>
long double lowest_bin_half_unit() {
  int exponent = 0;
  std::frexp(reproblas::bins<F>(reproblas::kMaxIndex<F>)[0], &exponent);  // the base 0.75 · 2^exponent
  return std::ldexp(1.0L, exponent - reproblas::format<F>::mant_dig - 1);
}

template <class T>
void check_error_bound() {
  using F = binned_float_t<T>;
  for (sum_data kind : every_sum_data()) {
    for (size_t n : {size_t(1), size_t(513), size_t(4097), size_t(100003)}) {
      const uint64_t seed = fresh_seed();
      const auto data = make_sum_data<T>(kind, n, seed);
      const F got = warpfold::detail::binned_value(accumulate_all(data));
      if (!std::isfinite(got)) continue;  // a sum past the type's range (largest values)
      exact_sum error;
      long double max_abs = 0;
      for (const T& x : data) {
        error.add(double(accumulated(x)));
        max_abs = std::max(max_abs, std::fabs((long double)accumulated(x)));
      }
      error.add(-double(got));
      const long double bound = reproblas::error_bound<F>(n, max_abs, got) + n * lowest_bin_half_unit<F>();
      EXPECT_LE(std::fabs(error.value()), bound * (1 + 1e-9L))
          << name_of(kind) << ", n = " << n << ", seed " << seed << ": got " << bits_of(got);
    }
  }
}

TEST(ReproducibleSum, FloatWithinReproBLASBoundOfTheExactSum) { check_error_bound<float>(); }
TEST(ReproducibleSum, DoubleWithinReproBLASBoundOfTheExactSum) { check_error_bound<double>(); }
TEST(ReproducibleSum, HalfIntoFloatWithinReproBLASBoundOfTheExactSum) { check_error_bound<__half>(); }

// The exact sum's own check: a sum that cancels to a known value.
TEST(ExactSum, HoldsCancellingSumsExactly) {
  exact_sum s;
  for (double x : {1e300, 1.0, -1e300, 0x1p-1074, -0x1p-1074, 3.5, -1e-300, 1e-300}) s.add(x);
  EXPECT_EQ(s.value(), 4.5L);
  s.add(-4.5);
  s.add(-0x1p-1074);
  EXPECT_TRUE(s.negative());
  EXPECT_EQ(s.value(), -std::ldexp(1.0L, -1074));
}

// NaN and infinities, as reproducible.cuh documents: in every arrangement, and in the bits.
template <class F>
void check_special(std::vector<F> special, F expected_value, const std::string& what) {
  const uint64_t seed = fresh_seed();
  auto data = make_sum_data<F>(sum_data::uniform, 5000, seed);
  std::mt19937_64 gen(seed);
  for (F x : special) data[gen() % data.size()] = x;
  for (int arrangement = 0; arrangement < 6; ++arrangement) {
    const F got = finish<F>(fold_arranged(data, gen), true);
    EXPECT_TRUE(same_bits(got, expected_value)) << what << ", seed " << seed << ": " << bits_of(got);
  }
  const F reference = reference_sum(data);
  EXPECT_TRUE(std::isnan(expected_value) ? std::isnan(reference) : same_bits(reference, expected_value))
      << what << ": ReproBLAS gives " << bits_of(reference);
}

template <class F>
void check_nan_and_infinities() {
  const F inf = std::numeric_limits<F>::infinity(), nan = std::numeric_limits<F>::quiet_NaN();
  const F canonical_nan = warpfold::detail::binned_canonical_nan<F>();
  EXPECT_FALSE(std::signbit(canonical_nan));
  check_special<F>({nan}, canonical_nan, "one NaN");
  check_special<F>({-nan, nan, F(1)}, canonical_nan, "NaNs of both signs");
  check_special<F>({inf}, inf, "+inf");
  check_special<F>({-inf, -inf}, -inf, "-inf twice");
  check_special<F>({inf, -inf}, canonical_nan, "+inf and -inf");
  check_special<F>({nan, inf}, canonical_nan, "NaN and +inf");
  const F big = std::numeric_limits<F>::max();
  check_special<F>({big, big}, inf, "a finite sum past the largest value");
}

TEST(ReproducibleSum, NaNAndInfinitiesFloat) { check_nan_and_infinities<float>(); }
TEST(ReproducibleSum, NaNAndInfinitiesDouble) { check_nan_and_infinities<double>(); }

// Where IEEE sums depend on the order, the binned sum does not: max + max - max is max in any
// order (left to right it overflows); the empty sum and sums of zeros are +0.
template <class F>
void check_order_free_edges() {
  const F big = std::numeric_limits<F>::max();
  std::vector<F> data{big, big, -big};
  EXPECT_EQ((big + big) - big, std::numeric_limits<F>::infinity());
  std::mt19937_64 gen(fresh_seed());
  for (int arrangement = 0; arrangement < 6; ++arrangement) {
    EXPECT_TRUE(same_bits(finish<F>(fold_arranged(data, gen), true), big));
  }
  EXPECT_TRUE(same_bits(finish<F>(binned_accumulator<F>{}, false), F(0)));
  EXPECT_TRUE(same_bits(finish<F>(fold_arranged(std::vector<F>{-F(0), -F(0)}, gen), true), F(0)));
  EXPECT_TRUE(same_bits(reference_sum(std::vector<F>{-F(0), -F(0)}), F(0)));
}

TEST(ReproducibleSum, OrderFreeWhereIeeeSumsAreNotFloat) { check_order_free_edges<float>(); }
TEST(ReproducibleSum, OrderFreeWhereIeeeSumsAreNotDouble) { check_order_free_edges<double>(); }

}  // namespace
