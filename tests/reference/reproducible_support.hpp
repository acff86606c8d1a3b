#pragma once
// Shared by the CPU and GPU tests of warpfold::reproducible_sum: the kinds of data it must sum,
// ReproBLAS's result for them (the port in reproblas.hpp), and a random merge tree of the
// library's accumulators.

#include "reference/reproblas.hpp"

#include "harness/host_float_convert.hpp"
#include "harness/splitmix64.hpp"

#include <warpfold/detail/binned.cuh>
#include <warpfold/distributed/shard_plan.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpfold::testing {

// What the data stresses.
enum class sum_data {
  uniform,           // uniform in [-1, 1]
  positive,          // uniform in [0, 1]: the carries grow
  mixed_magnitudes,  // random signs, magnitudes log-uniform over most of the type's range
  cancelling,        // pairs x, -x of mixed magnitudes and a few small values, shuffled
  subnormal,         // the type's subnormals, zeros and its smallest normals
  rising,            // magnitudes growing along the data: the index rises again and again
  largest,           // pairs ±x near the type's largest value, ordinary values between (the top bin)
  zeros,             // +0 and -0
  bin_edge,          // one sign, just below a bin's upper edge: each deposit moves a primary the most
};

inline const std::vector<sum_data>& every_sum_data() {
  static const std::vector<sum_data> all{sum_data::uniform,   sum_data::positive, sum_data::mixed_magnitudes,
                                         sum_data::cancelling, sum_data::subnormal, sum_data::rising,
                                         sum_data::largest,    sum_data::zeros,    sum_data::bin_edge};
  return all;
}

inline std::string name_of(sum_data kind) {
  switch (kind) {
    case sum_data::uniform: return "uniform";
    case sum_data::positive: return "positive";
    case sum_data::mixed_magnitudes: return "mixed magnitudes";
    case sum_data::cancelling: return "cancelling";
    case sum_data::subnormal: return "subnormal";
    case sum_data::rising: return "rising";
    case sum_data::largest: return "largest";
    case sum_data::zeros: return "zeros";
    case sum_data::bin_edge: return "bin edge";
  }
  return "?";
}

// The binary exponents of T's smallest subnormal, smallest normal and largest finite values, and
// its significand bits.
template <class T>
struct exponent_range;
template <>
struct exponent_range<float> {
  static constexpr int subnormal = -149, normal = -126, largest = 127, digits = 24;
};
template <>
struct exponent_range<double> {
  static constexpr int subnormal = -1074, normal = -1022, largest = 1023, digits = 53;
};
template <>
struct exponent_range<__half> {
  static constexpr int subnormal = -24, normal = -14, largest = 15, digits = 11;
};
template <>
struct exponent_range<__nv_bfloat16> {
  static constexpr int subnormal = -133, normal = -126, largest = 127, digits = 8;
};

// n values of T of the given kind, from the seed.
template <class T>
std::vector<T> make_sum_data(sum_data kind, size_t n, uint64_t seed) {
  using range = exponent_range<T>;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto sign = [&] { return gen() % 2 ? 1.0 : -1.0; };
  const auto uniform = [&] { return 2 * unit(gen) - 1; };
  // A significand uniform in [1, 1.99]: times 2^largest it stays finite in every type.
  const auto significand = [&] { return 1.0 + 0.99 * unit(gen); };
  // ± significand · 2^e, e uniform in [lo, hi).
  const auto log_uniform = [&](int lo, int hi) { return sign() * std::ldexp(significand(), lo + int((hi - lo) * unit(gen))); };
  // The exponents of the mixed magnitudes: about 1e-30..1e30 for float and bfloat16,
  // 1e-300..1e300 for double, 6e-5..3e4 for half.
  const int reach = std::is_same_v<T, double> ? 1000 : std::is_same_v<T, __half> ? 14 : 100;
  std::vector<double> v(n);
  switch (kind) {
    case sum_data::uniform:
      for (auto& x : v) x = uniform();
      break;
    case sum_data::positive:
      for (auto& x : v) x = unit(gen);
      break;
    case sum_data::mixed_magnitudes:
      for (auto& x : v) x = log_uniform(-reach, reach);
      break;
    case sum_data::cancelling:
      for (size_t i = 0; i + 1 < n; i += 2) {
        v[i] = log_uniform(-reach, reach);
        v[i + 1] = -v[i];
      }
      for (size_t k = 0; n > 0 && k < n / 64 + 1; ++k) v[gen() % n] = uniform();
      break;
    case sum_data::subnormal:
      for (auto& x : v) {
        const uint64_t what = gen() % 8, steps = gen() % (uint64_t(1) << (range::digits - 1));
        x = what == 0 ? 0.0 : what == 1 ? sign() * std::ldexp(significand(), range::normal)
                                        : sign() * std::ldexp(double(steps), range::subnormal);
      }
      break;
    case sum_data::rising:
      for (size_t i = 0; i < n; ++i) {
        const double from = -reach, to = reach;
        v[i] = sign() * std::ldexp(significand(), int(from + (to - from) * double(i) / double(n)));
      }
      break;
    case sum_data::largest:
      for (size_t i = 0; i + 1 < n; i += 2) {
        const bool big = gen() % 4 != 0;
        v[i] = big ? sign() * std::ldexp(significand(), range::largest - int(gen() % 8)) : uniform();
        v[i + 1] = big ? -v[i] : uniform();
      }
      break;
    case sum_data::zeros:
      for (auto& x : v) x = gen() % 2 ? 0.0 : -0.0;
      break;
    case sum_data::bin_edge: {
      // Bin i takes magnitudes below 2^(max_exp - W·i) (ReproBLAS's binned_sindex), W and
      // max_exp those of the accumulated type; half reaches bin 9 (2^11) only.
      using format = reproblas::format<detail::binned_float_t<T>>;
      const int bin = std::is_same_v<T, __half> ? 9 : 2 + int(gen() % (std::is_same_v<T, double> ? 48 : 16));
      const double edge = std::ldexp(1.0, format::max_exp - format::width * bin), side = sign();
      for (auto& x : v) x = side * edge * (1 - std::ldexp(unit(gen), -6));
      break;
    }
  }
  if (kind == sum_data::cancelling || kind == sum_data::largest) std::shuffle(v.begin(), v.end(), gen);
  std::vector<T> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = harness::from_double<T>(v[i]);
  return out;
}

// The elements of a case of tests/data/reproblas/recorded_sums.txt (ReproBLAS's own sums), drawn
// from the seed bit by bit exactly as record_reproblas.c there draws them: sign, exponent and
// fraction fields from two splitmix64 draws per element.

template <class F>
std::vector<F> recorded_case_values(const std::string& kind, uint64_t n, uint64_t seed) {
  using bits_t = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  constexpr int frac_bits = sizeof(F) == 4 ? 23 : 52, bias = sizeof(F) == 4 ? 127 : 1023;
  constexpr int max_exp = bias + 1, reach = sizeof(F) == 4 ? 100 : 1000, sign_shift = 8 * sizeof(F) - 1;
  const auto in_range = [](uint64_t s, long lo, long hi) { return lo + long(s % uint64_t(hi - lo + 1)); };
  harness::splitmix64 draw{seed};
  uint64_t previous = 0;
  std::vector<F> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = draw(), s = draw();
    uint64_t sign = r >> 63;
    const uint64_t fraction = r & ((uint64_t(1) << frac_bits) - 1);
    long exponent = 0;
    bool negate_previous = false;
    if (kind == "unit" || kind == "positive") {
      exponent = in_range(s, -24, -1);
      if (kind == "positive") sign = 0;
    } else if (kind == "mixed") {
      exponent = in_range(s, -reach, reach);
    } else if (kind == "subnormal") {
      exponent = s % 8 == 0 ? 1 - bias : -bias;
    } else if (kind == "rising") {
      exponent = -reach + long(uint64_t(2 * reach) * i / n);
    } else if (kind == "largest" || kind == "cancelling") {
      negate_previous = i % 2 == 1 && s % 64 != 0;
      exponent = kind == "cancelling" ? in_range(s, -reach, reach)
                 : s % 2             ? max_exp - 1 - long(s % 8)
                                     : in_range(s, -24, -1);
    } else {
      throw std::invalid_argument("recorded_case_values: unknown kind " + kind);
    }
    const bits_t bits = negate_previous ? bits_t(previous ^ (uint64_t(1) << sign_shift))
                                        : bits_t((sign << sign_shift) | (uint64_t(exponent + bias) << frac_bits) | fraction);
    std::memcpy(&out[i], &bits, sizeof(F));
    previous = bits;
  }
  return out;
}

// The accumulated type's value of an element.
template <class T>
detail::binned_float_t<T> accumulated(const T& x) {
  return detail::binned_float_t<T>(harness::to_double(x));
}

// ReproBLAS's binned sum of the data, element by element in the order given (binned_smsadd).
template <class T>
reproblas::binned<detail::binned_float_t<T>> reference_binned(const std::vector<T>& data) {
  reproblas::binned<detail::binned_float_t<T>> y;
  for (const T& x : data) reproblas::add(accumulated(x), y);
  return y;
}

template <class T>
detail::binned_float_t<T> reference_sum(const std::vector<T>& data) {
  return reproblas::convert(reference_binned(data));
}

template <class F>
bool same_bits(F a, F b) {
  return std::memcmp(&a, &b, sizeof(F)) == 0;
}

// The value's bits, for messages.
template <class F>
std::string bits_of(F x) {
  std::conditional_t<sizeof(F) == 8, uint64_t, uint32_t> b;
  std::memcpy(&b, &x, sizeof(F));
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g (0x%llx)", double(x), (unsigned long long)b);
  return text;
}

// Merges accumulators in a random binary tree, each merge's operands in a random order, through
// the reduce's operator; the empty accumulator where there are none.
template <class F>
detail::binned_accumulator<F> merge_in_random_tree(std::vector<detail::binned_accumulator<F>> parts, std::mt19937_64& gen) {
  if (parts.empty()) return detail::binned_accumulator<F>{};
  while (parts.size() > 1) {
    const size_t i = gen() % parts.size();
    size_t j = gen() % (parts.size() - 1);
    if (j >= i) ++j;
    parts[i] = gen() % 2 ? detail::binned_plus{}(parts[i], parts[j]) : detail::binned_plus{}(parts[j], parts[i]);
    std::swap(parts[j], parts.back());  // j out, whichever is last (i included) in its place
    parts.pop_back();
  }
  return parts.front();
}

// n elements cut at random points into `parts` contiguous shards, in order: any sizes, empty ones
// where two cuts meet (the splits over GPUs of the distributed reproducible sum's tests).
inline std::vector<distributed::shard_extent> random_split(uint64_t n, int parts, std::mt19937_64& gen) {
  std::vector<uint64_t> cuts{0, n};
  for (int i = 1; i < parts; ++i) cuts.push_back(gen() % (n + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<distributed::shard_extent> split;
  for (int i = 0; i < parts; ++i) split.push_back({cuts[size_t(i)], cuts[size_t(i) + 1] - cuts[size_t(i)]});
  return split;
}

}  // namespace warpfold::testing
