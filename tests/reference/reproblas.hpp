#pragma once
// A CPU port of ReproBLAS's binned summation (github.com/peterahrens/ReproBLAS, src/binned/ and
// src/binnedBLAS/smssum), the reference that warpfold::reproducible_sum's bits are tested against.
// It follows ReproBLAS function by function (the names in the comments), with its defaults: 3
// folds, bins of 13 bits (float) and 40 (double). It shares no code with the library's
// accumulator (include/warpfold/detail/binned.cuh): where ReproBLAS keeps a reference version
// beside a bit-trick one (indices through frexp, renormalisation through the binade's unit), this
// port takes the reference version, so that the two implementations differ as much as they can.

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace warpfold::testing::reproblas {

inline constexpr int kFold = 3;  // SIDEFAULTFOLD, DIDEFAULTFOLD

template <class F>
struct format;
template <>
struct format<float> {
  using bits = uint32_t;
  static constexpr int mant_dig = FLT_MANT_DIG, max_exp = FLT_MAX_EXP, min_exp = FLT_MIN_EXP;
  static constexpr int width = 13;  // SBWIDTH
  static constexpr double epsilon = FLT_EPSILON;
};
template <>
struct format<double> {
  using bits = uint64_t;
  static constexpr int mant_dig = DBL_MANT_DIG, max_exp = DBL_MAX_EXP, min_exp = DBL_MIN_EXP;
  static constexpr int width = 40;  // DBWIDTH
  static constexpr double epsilon = DBL_EPSILON;
};

template <class F>
inline constexpr int kMaxIndex =  // binned_SBMAXINDEX
    ((format<F>::max_exp - format<F>::min_exp + format<F>::mant_dig - 1) / format<F>::width) - 1;
template <class F>
inline constexpr int kMaxFold = kMaxIndex<F> + 1;  // binned_SBMAXFOLD
template <class F>
inline constexpr int kEndurance = 1 << (format<F>::mant_dig - format<F>::width - 2);  // binned_SBENDURANCE
template <class F>
inline const F kCompression = F(1.0 / (1 << (format<F>::mant_dig - format<F>::width + 1)));  // binned_SMCOMPRESSION
template <class F>
inline const F kExpansion = F(1.0 * (1 << (format<F>::mant_dig - format<F>::width + 1)));  // binned_SMEXPANSION

// A binned sum: primaries and carries (float_binned of fold 3).
template <class F>
struct binned {
  std::array<F, kFold> pri{};
  std::array<F, kFold> car{};
};

template <class F>
bool is_nan_inf(F x) {  // ISNANINFF
  return std::isnan(x) || std::isinf(x);
}

template <class F>
F or_one(F x) {  // q.i |= 1
  typename format<F>::bits b;
  std::memcpy(&b, &x, sizeof(b));
  b |= 1;
  std::memcpy(&x, &b, sizeof(b));
  return x;
}

// binned_smbins: bins[X] is the base of bin X, the indices past the last repeating it.
template <class F>
const F* bins(int index) {
  using fmt = format<F>;
  static const std::vector<F> table = [] {
    std::vector<F> b(size_t(kMaxIndex<F> + kMaxFold<F>));
    b[0] = F(2.0) * std::ldexp(F(0.75), fmt::max_exp - 1);
    int i = 1;
    for (; i <= kMaxIndex<F>; ++i) b[i] = std::ldexp(F(0.75), fmt::max_exp + fmt::mant_dig - fmt::width + 1 - i * fmt::width);
    for (; i < kMaxIndex<F> + kMaxFold<F>; ++i) b[i] = b[i - 1];
    return b;
  }();
  return table.data() + index;
}

// binned_sindex (the reference version through frexp; 0 for NaN and inf, as the bit version).
template <class F>
int index_of(F x) {
  if (is_nan_inf(x)) return 0;
  if (x == 0) return kMaxIndex<F>;
  int exp = 0;
  std::frexp(x, &exp);
  return std::min((format<F>::max_exp - exp) / format<F>::width, kMaxIndex<F>);
}

// binned_smindex (reference version).
template <class F>
int index_of(const binned<F>& y) {
  using fmt = format<F>;
  int exp = 0;
  std::frexp(y.pri[0], &exp);
  if (exp == fmt::max_exp) return 0;
  return (fmt::max_exp + fmt::mant_dig - fmt::width + 1 - exp) / fmt::width;
}

// binned_smindex0 (reference version).
template <class F>
bool in_top_bin(const binned<F>& y) {
  int exp = 0;
  std::frexp(y.pri[0], &exp);
  return exp == format<F>::max_exp;
}

// binned_smsupdate
template <class F>
void update(F x, binned<F>& y) {
  if (is_nan_inf(y.pri[0])) return;
  const int x_index = index_of(x);
  if (y.pri[0] == 0) {
    const F* b = bins<F>(x_index);
    for (int i = 0; i < kFold; ++i) {
      y.pri[i] = b[i];
      y.car[i] = 0;
    }
    return;
  }
  const int shift = index_of(y) - x_index;
  if (shift > 0) {
    int i = kFold - 1;
    for (; i >= shift; --i) {
      y.pri[i] = y.pri[i - shift];
      y.car[i] = y.car[i - shift];
    }
    const F* b = bins<F>(x_index);
    for (int j = 0; j < i + 1; ++j) {
      y.pri[j] = b[j];
      y.car[j] = 0;
    }
  }
}

// binned_smsdeposit
template <class F>
void deposit(F x, binned<F>& y) {
  if (is_nan_inf(x) || is_nan_inf(y.pri[0])) {
    y.pri[0] += x;
    return;
  }
  int i = 0;
  if (in_top_bin(y)) {
    F m = y.pri[0];
    F q = or_one(x * kCompression<F>);
    q += m;
    y.pri[0] = q;
    m -= q;
    m *= kExpansion<F> * F(0.5);
    x += m;
    x += m;
    i = 1;
  }
  for (; i < kFold - 1; ++i) {
    F m = y.pri[i];
    F q = or_one(x);
    q += m;
    y.pri[i] = q;
    m -= q;
    x += m;
  }
  y.pri[i] += or_one(x);
}

// binned_smrenorm (the reference version: one quarter-binade at most, which the deposits
// between renormalisations never exceed).
template <class F>
void renorm(binned<F>& y) {
  if (y.pri[0] == 0 || is_nan_inf(y.pri[0])) return;
  for (int i = 0; i < kFold; ++i) {
    int exp = 0;
    std::frexp(y.pri[i], &exp);
    const F ufp = std::ldexp(F(1), exp - 1);
    if (y.pri[i] >= ufp * F(1.75)) {
      y.pri[i] -= ufp * F(0.25);
      y.car[i] += 1;
    } else if (y.pri[i] < ufp * F(1.5)) {
      y.pri[i] += ufp * F(0.25);
      y.car[i] -= 1;
    }
  }
}

// binned_smsadd: one element, renormalised at once.
template <class F>
void add(F x, binned<F>& y) {
  update(x, y);
  deposit(x, y);
  renorm(y);
}

// binned_smsmadd: y += x.
template <class F>
void add(const binned<F>& x, binned<F>& y) {
  if (x.pri[0] == 0) return;
  if (y.pri[0] == 0) {
    y = x;
    return;
  }
  if (is_nan_inf(x.pri[0]) || is_nan_inf(y.pri[0])) {
    y.pri[0] += x.pri[0];
    return;
  }
  const int x_index = index_of(x), y_index = index_of(y);
  const int shift = y_index - x_index;
  if (shift > 0) {
    const F* b = bins<F>(y_index);
    for (int i = kFold - 1; i >= shift; --i) {
      y.pri[i] = x.pri[i] + (y.pri[i - shift] - b[i - shift]);
      y.car[i] = x.car[i] + y.car[i - shift];
    }
    for (int i = 0; i < shift && i < kFold; ++i) {
      y.pri[i] = x.pri[i];
      y.car[i] = x.car[i];
    }
  } else {
    const F* b = bins<F>(x_index);
    for (int i = -shift; i < kFold; ++i) {
      y.pri[i] += x.pri[i + shift] - b[i + shift];
      y.car[i] += x.car[i + shift];
    }
  }
  renorm(y);
}

// binnedBLAS_smssum for finite elements (its scalar path): blocks of at most `endurance`
// elements, the index raised once per block by the block's largest magnitude, a renormalisation
// before a block that would take the pending deposits past the endurance, and one at the end.
template <class F>
void sum(const F* x, size_t n, binned<F>& y) {
  size_t deposits = 0;
  for (size_t i = 0; i < n; i += size_t(kEndurance<F>)) {
    const size_t block = std::min(n - i, size_t(kEndurance<F>));
    F amax = 0;
    for (size_t j = 0; j < block; ++j) amax = std::max(amax, std::fabs(x[i + j]));
    if (deposits + block > size_t(kEndurance<F>)) {
      renorm(y);
      deposits = 0;
    }
    update(amax, y);
    for (size_t j = 0; j < block; ++j) deposit(x[i + j], y);
    deposits += block;
  }
  renorm(y);
}

// binned_ssmconv: the carries and primaries added in double, in order of decreasing exponent.
inline float convert(const binned<float>& x) {
  if (is_nan_inf(x.pri[0])) return x.pri[0];
  if (x.pri[0] == 0.0f) return 0.0f;
  double y = 0.0;
  const int x_index = index_of(x);
  const float* b = bins<float>(x_index);
  int i = 0;
  if (x_index == 0) {
    y += double(x.car[0]) * double(b[0] / 6.0) * double(kExpansion<float>);
    y += double(x.car[1]) * double(b[1] / 6.0);
    y += double(x.pri[0] - b[0]) * double(kExpansion<float>);
    i = 2;
  } else {
    y += double(x.car[0]) * double(b[0] / 6.0);
    i = 1;
  }
  for (; i < kFold; ++i) {
    y += double(x.car[i]) * double(b[i] / 6.0);
    y += double(x.pri[i - 1] - b[i - 1]);
  }
  y += double(x.pri[kFold - 1] - b[kFold - 1]);
  return float(y);
}

// binned_ddmconv: as binned_ssmconv, in double, the top bins scaled down so that nothing
// overflows before the last addition.
inline double convert(const binned<double>& x) {
  constexpr int kMant = DBL_MANT_DIG, kWidth = format<double>::width;
  if (is_nan_inf(x.pri[0])) return x.pri[0];
  if (x.pri[0] == 0.0) return 0.0;
  double y = 0.0;
  const int x_index = index_of(x);
  const double* b = bins<double>(x_index);
  int i = 0;
  if (x_index <= (3 * kMant) / kWidth) {
    const double scale_down = std::ldexp(0.5, 1 - (2 * kMant - kWidth));
    const double scale_up = std::ldexp(0.5, 1 + (2 * kMant - kWidth));
    const int scaled = std::max(std::min(kFold, (3 * kMant) / kWidth - x_index), 0);
    if (x_index == 0) {
      y += x.car[0] * ((b[0] / 6.0) * scale_down * kExpansion<double>);
      y += x.car[1] * ((b[1] / 6.0) * scale_down);
      y += (x.pri[0] - b[0]) * scale_down * kExpansion<double>;
      i = 2;
    } else {
      y += x.car[0] * ((b[0] / 6.0) * scale_down);
      i = 1;
    }
    for (; i < scaled; ++i) {
      y += x.car[i] * ((b[i] / 6.0) * scale_down);
      y += (x.pri[i - 1] - b[i - 1]) * scale_down;
    }
    if (i == kFold) {
      y += (x.pri[kFold - 1] - b[kFold - 1]) * scale_down;
      return y * scale_up;
    }
    if (std::isinf(y * scale_up)) return y * scale_up;
    y *= scale_up;
    for (; i < kFold; ++i) {
      y += x.car[i] * (b[i] / 6.0);
      y += x.pri[i - 1] - b[i - 1];
    }
    y += x.pri[kFold - 1] - b[kFold - 1];
  } else {
    y += x.car[0] * (b[0] / 6.0);
    for (i = 1; i < kFold; ++i) {
      y += x.car[i] * (b[i] / 6.0);
      y += x.pri[i - 1] - b[i - 1];
    }
    y += x.pri[kFold - 1] - b[kFold - 1];
  }
  return y;
}

// reproBLAS_rssum / rdsum's value, element by element (binned_smsadd), in the order given.
template <class F>
binned<F> add_each(const std::vector<F>& x) {
  binned<F> y;
  for (F v : x) add(v, y);
  return y;
}

// binned_sbbound / binned_dbbound: ReproBLAS's bound on |computed - exact| for n summands of
// largest magnitude max_abs whose binned sum is `computed` (in long double, unrounded).
template <class F>
long double error_bound(uint64_t n, long double max_abs, long double computed) {
  using fmt = format<F>;
  const long double eps = fmt::epsilon;
  const long double smallest = std::ldexp(0.5L, fmt::min_exp - 1);
  return std::max(max_abs, smallest) * std::ldexp(0.5L, (1 - kFold) * fmt::width + 1) * (long double)n +
         (7 * eps / (1 - 6 * std::sqrt(eps) - 7 * eps)) * std::fabs(computed);
}

}  // namespace warpfold::testing::reproblas
