#pragma once
// The binned (indexed) accumulator of ReproBLAS (Ahrens, Demmel and Nguyen, "Algorithms for
// Efficient Reproducible Floating Point Summation", ACM TOMS 46(3), 2020), with ReproBLAS's
// default parameters: 3 folds, bins of 13 bits for float and 40 for double. It is what
// warpfold::reproducible_sum (reproducible.cuh) folds; every function here runs on the host and
// the device alike, with the same bits.
//
// How it works. The exponent range is cut into bins of W bits at fixed boundaries (bin 0 at the
// top). An accumulator holds three consecutive bins, from the bin of the largest magnitude seen so
// far (its index) down. Each bin has a primary, a float of the bin's binade whose low bits gather
// the slices of the inputs that fall in the bin, and a carry, the count of quarter-binades that
// renormalisation moved out of the primary. A deposit cuts the input at the bins' fixed
// boundaries (adding it, with its last bit set, to the primary rounds it to the primary's unit and
// never ties; the remainder goes on to the next bin) and adds each slice exactly, so each bin's
// total is an exact integer multiple of its unit that depends on the multiset of inputs alone:
// the order of deposits, the split of the inputs, the shape of the merge tree change nothing, bit
// for bit. The result is the bins' totals added from the top down in a fixed order (ReproBLAS's
// conversion), so it depends on the input values alone.
//
// The states of an accumulator (binned_accumulator below):
//  - empty: every field 0 (a value-initialised accumulator);
//  - holding: one element, not yet deposited, in primary[0] (pending == kHolding): what lift
//    makes, so that a fold going on by accumulate or by op(acc, lift(x)) deposits each element
//    and never merges;
//  - special: primary[0] is ±inf or NaN and is the sum (ReproBLAS adds NaN and infinities into
//    primary[0] and ignores the rest); the other fields mean nothing until canonicalised;
//  - binned: index i, primaries and carries as above, `pending` deposits since the last
//    renormalisation.
//
// NaN and infinities (order-independent): any NaN gives NaN, +inf and -inf together give NaN,
// and the NaN returned is the canonical quiet NaN (positive, no payload) on every platform;
// otherwise an infinity gives that infinity. A finite sum beyond the type's range converts to
// ±inf (ReproBLAS). A sum of zeros, and the empty sum, is +0.
//
// Cost of a deposit on the fast path (the index covers the element, fewer than `endurance`
// deposits pending): per fold but the last an OR of the last bit and three adds, then an OR and
// an add, 10 instructions for 3 folds; then a compare with a cached limit, a compare and an
// increment of the pending count, one branch. No multiplication, no division. Every 512 (float)
// or 2048 (double) deposits a renormalisation of a few bit operations per fold; the rest (a new
// index, the top bin, NaN and infinities) is one out-of-line slow path. (docs/design.md has the
// figures.)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

// The slow path's functions are out of line where CUDA compiles them (see binned_add_slow); the
// fold loops are unrolled in device code (the folds stay in registers) and left to the host
// compiler elsewhere, which would warn of an unknown pragma.
#ifdef __CUDACC__
#define WARPFOLD_BINNED_OUT_OF_LINE __noinline__
#else
#define WARPFOLD_BINNED_OUT_OF_LINE
#endif
#ifdef __CUDA_ARCH__
#define WARPFOLD_BINNED_UNROLL _Pragma("unroll")
#else
#define WARPFOLD_BINNED_UNROLL
#endif

namespace warpfold::detail {

// ReproBLAS's format per accumulated type (binned.h): the IEEE fields and the bin width.
template <class F>
struct binned_format;
template <>
struct binned_format<float> {
  using bits = uint32_t;
  static constexpr int mant_dig = 24, max_exp = 128, min_exp = -125, exp_bits = 8;
  static constexpr int width = 13;  // SBWIDTH
};
template <>
struct binned_format<double> {
  using bits = uint64_t;
  static constexpr int mant_dig = 53, max_exp = 1024, min_exp = -1021, exp_bits = 11;
  static constexpr int width = 40;  // DBWIDTH
};

// The parameters derived from the format, as ReproBLAS derives them (binned.h, config.h).
template <class F>
struct binned_params : binned_format<F> {
  using format = binned_format<F>;
  using bits = typename format::bits;
  static constexpr int folds = 3;  // SIDEFAULTFOLD / DIDEFAULTFOLD
  static constexpr int frac_bits = format::mant_dig - 1;
  static constexpr int exp_bias = format::max_exp - 1;
  static constexpr int exp_all_ones = (1 << format::exp_bits) - 1;
  // The lowest bin (binned_SBMAXINDEX); indices past it reuse its boundaries.
  static constexpr int max_index =
      (format::max_exp - format::min_exp + format::mant_dig - 1) / format::width - 1;
  // Deposits a primary takes between renormalisations (binned_SBENDURANCE): each moves it by at
  // most 2^-(mant_dig - width) of its binade, and it starts a quarter-binade from either edge.
  static constexpr int endurance = 1 << (format::mant_dig - format::width - 2);
  // The most elements one sum may take (binned_SBCAPACITY): the carries stay exact below it.
  static constexpr uint64_t capacity = uint64_t(endurance) * ((uint64_t(1) << (format::mant_dig - 1)) - 1);
  // Bin 0 sits at the top of the exponent range, W - 1 bits lower than the bins' spacing puts it,
  // so elements are scaled down by 2^-(mant_dig - width + 1) before their deposit there.
  static constexpr int top_bin_shift = format::mant_dig - format::width + 1;
};

template <class F>
__host__ __device__ __forceinline__ typename binned_format<F>::bits binned_bits(F x) {
  typename binned_format<F>::bits b;
  memcpy(&b, &x, sizeof(b));
  return b;
}

template <class F>
__host__ __device__ __forceinline__ F binned_from_bits(typename binned_format<F>::bits b) {
  F x;
  memcpy(&x, &b, sizeof(x));
  return x;
}

template <class F>
__host__ __device__ __forceinline__ int binned_biased_exponent(F x) {
  using P = binned_params<F>;
  return int((binned_bits(x) >> P::frac_bits) & typename P::bits(P::exp_all_ones));
}

template <class F>
__host__ __device__ __forceinline__ bool binned_is_special(F x) {  // ±inf or NaN
  return binned_biased_exponent(x) == binned_params<F>::exp_all_ones;
}

__host__ __device__ __forceinline__ float binned_magnitude(float x) { return fabsf(x); }
__host__ __device__ __forceinline__ double binned_magnitude(double x) { return fabs(x); }

// x with its last bit set: added to a primary it rounds to the primary's unit and never ties.
template <class F>
__host__ __device__ __forceinline__ F binned_with_low_bit(F x) {
  return binned_from_bits<F>(binned_bits(x) | typename binned_format<F>::bits(1));
}

template <class F>
__host__ __device__ __forceinline__ F binned_infinity() {
  using P = binned_params<F>;
  return binned_from_bits<F>(typename P::bits(P::exp_all_ones) << P::frac_bits);
}

// The canonical quiet NaN (positive, no payload): NaN sums return it on every platform.
template <class F>
__host__ __device__ __forceinline__ F binned_canonical_nan() {
  using P = binned_params<F>;
  return binned_from_bits<F>(binned_bits(binned_infinity<F>()) | (typename P::bits(1) << (P::frac_bits - 1)));
}

// 2^e for e from the smallest subnormal exponent up to the largest.
template <class F>
__host__ __device__ __forceinline__ F binned_pow2(int e) {
  using P = binned_params<F>;
  using bits = typename P::bits;
  const int min_normal = 1 - P::exp_bias;
  return e >= min_normal ? binned_from_bits<F>(bits(e + P::exp_bias) << P::frac_bits)
                         : binned_from_bits<F>(bits(1) << (e - min_normal + P::frac_bits));
}

// The value a primary of bin j starts from, 0.75 · 2^(its binade + 1) (binned_smbins): 1.5 times
// the binade's unit, a quarter-binade from either edge.
template <class F>
__host__ __device__ __forceinline__ F binned_bin_base(int j) {
  using P = binned_params<F>;
  using bits = typename P::bits;
  j = j < P::max_index ? j : P::max_index;
  const int exponent = j == 0 ? P::max_exp - 1 : P::max_exp + P::mant_dig - P::width - j * P::width;
  return binned_from_bits<F>((bits(exponent + P::exp_bias) << P::frac_bits) | (bits(1) << (P::frac_bits - 1)));
}

// The index of the bin that holds x's leading bit (binned_sindex); 0 for ±inf and NaN.
template <class F>
__host__ __device__ __forceinline__ int binned_index_of(F x) {
  using P = binned_params<F>;
  int e = binned_biased_exponent(x);
  if (e != 0) return (2 * P::max_exp - 2 - e) / P::width;  // truncates -1 / W to 0 for inf and NaN
  if (x == F(0)) return P::max_index;
  // A subnormal: its exponent from the scaled value (exact), as frexp gives it.
  e = binned_biased_exponent(x * binned_pow2<F>(P::mant_dig)) - P::mant_dig;
  const int index = (2 * P::max_exp - 2 - e) / P::width;
  return index < P::max_index ? index : P::max_index;
}

// The largest magnitude that bin `index` and those below take without a new index; 0 for the
// top bin, whose deposits scale the element first and so never take the fast path.
template <class F>
__host__ __device__ __forceinline__ F binned_fast_limit(int index) {
  using P = binned_params<F>;
  return index == 0 ? F(0) : binned_pow2<F>(P::max_exp - P::width * index);
}

// The accumulator (see the top of this file for its states). Trivially copyable and without
// padding: its bytes travel as the reduce kernel's partials, word by word. The counter is as wide
// as F for that reason. A value-initialised accumulator is empty.
template <class F>
struct binned_accumulator {
  using counter = std::conditional_t<sizeof(F) == 8, int64_t, int32_t>;
  static constexpr int folds = binned_params<F>::folds;
  static constexpr counter kHolding = -1;
  F primary[folds];
  F carry[folds];
  F fast_below;     // |x| < fast_below deposits on the fast path; 0 where it may not
  counter pending;  // deposits since the last renormalisation, or kHolding
};

static_assert(std::is_trivially_copyable_v<binned_accumulator<float>> && sizeof(binned_accumulator<float>) == 32);
static_assert(std::is_trivially_copyable_v<binned_accumulator<double>> && sizeof(binned_accumulator<double>) == 64);

// The index of an accumulator's first bin (binned_smindex), from its primary's exponent.
template <class F>
__host__ __device__ __forceinline__ int binned_index(const binned_accumulator<F>& a) {
  using P = binned_params<F>;
  return (2 * P::max_exp + P::mant_dig - P::width - 1 - binned_biased_exponent(a.primary[0])) / P::width;
}

// An accumulator holding x, not yet deposited (the form's lift).
template <class F>
__host__ __device__ __forceinline__ binned_accumulator<F> binned_holding(F x) {
  binned_accumulator<F> a{};
  a.primary[0] = x;
  a.pending = binned_accumulator<F>::kHolding;
  return a;
}

// The special state with sum v (±inf or NaN, the NaN made canonical).
template <class F>
__host__ __device__ __forceinline__ binned_accumulator<F> binned_special(F v) {
  binned_accumulator<F> a{};
  a.primary[0] = v == v ? v : binned_canonical_nan<F>();
  a.fast_below = binned_infinity<F>();  // the fast path keeps primary[0] as it is
  return a;
}

// Moves the pending deposits' whole quarter-binades into the carries (binned_smrenorm), so that
// every primary lies in [1.5, 1.75) times its binade's unit again.
template <class F>
__host__ __device__ __forceinline__ void binned_renormalize(binned_accumulator<F>& a) {
  using P = binned_params<F>;
  using bits = typename P::bits;
  a.pending = 0;
  if (a.primary[0] == F(0) || binned_is_special(a.primary[0])) return;
WARPFOLD_BINNED_UNROLL
  for (int j = 0; j < P::folds; ++j) {
    bits b = binned_bits(a.primary[j]);
    a.carry[j] += F(int((b >> (P::frac_bits - 2)) & 3) - 2);
    b &= ~(bits(1) << (P::frac_bits - 2));
    b |= bits(1) << (P::frac_bits - 1);
    a.primary[j] = binned_from_bits<F>(b);
  }
}

// Moves an accumulator's first bin up to `index` (binned_smsupdate's shift): its bins move down
// by the difference, bins shifted past the last are dropped, new bins start empty.
template <class F>
__host__ __device__ __forceinline__ void binned_raise(binned_accumulator<F>& a, int index) {
  constexpr int folds = binned_params<F>::folds;
  const int shift = binned_index(a) - index;
  if (shift <= 0) return;
WARPFOLD_BINNED_UNROLL
  for (int step = 0; step < folds; ++step) {
    if (step < shift) {
WARPFOLD_BINNED_UNROLL
      for (int j = folds - 1; j > 0; --j) {
        a.primary[j] = a.primary[j - 1];
        a.carry[j] = a.carry[j - 1];
      }
    }
  }
WARPFOLD_BINNED_UNROLL
  for (int j = 0; j < folds; ++j) {
    if (j < shift) {
      a.primary[j] = binned_bin_base<F>(index + j);
      a.carry[j] = F(0);
    }
  }
  a.fast_below = binned_fast_limit<F>(index);
}

// Gives an accumulator an index that covers an element of index `index` (binned_smsupdate).
template <class F>
__host__ __device__ __forceinline__ void binned_update(binned_accumulator<F>& a, int index) {
  if (a.primary[0] != F(0)) {
    binned_raise(a, index);
    return;
  }
WARPFOLD_BINNED_UNROLL
  for (int j = 0; j < binned_params<F>::folds; ++j) {
    a.primary[j] = binned_bin_base<F>(index + j);
    a.carry[j] = F(0);
  }
  a.fast_below = binned_fast_limit<F>(index);
  a.pending = 0;
}

// Deposits x's slices into folds First.. (binned_smsdeposit's loop): each primary takes x with
// its last bit set, rounded to the primary's unit; the rest of x goes on to the next fold.
template <int First, class F>
__host__ __device__ __forceinline__ void binned_deposit_folds(binned_accumulator<F>& a, F x) {
  constexpr int folds = binned_params<F>::folds;
WARPFOLD_BINNED_UNROLL
  for (int j = First; j + 1 < folds; ++j) {
    const F sum = a.primary[j] + binned_with_low_bit(x);
    const F slice = a.primary[j] - sum;  // minus the slice deposited
    a.primary[j] = sum;
    x += slice;
  }
  a.primary[folds - 1] += binned_with_low_bit(x);
}

// Deposits finite x into an accumulator whose index covers it (binned_smsdeposit): in the top
// bin x is scaled down first and the slice taken scaled back up, in two halves (no overflow).
template <class F>
__host__ __device__ __forceinline__ void binned_deposit(binned_accumulator<F>& a, F x) {
  using P = binned_params<F>;
  if (binned_biased_exponent(a.primary[0]) != 2 * P::max_exp - 2) {
    binned_deposit_folds<0>(a, x);
    return;
  }
  // Every product below scales by a power of two, exactly, or is followed by an OR: a fused
  // multiply-add (nvcc's default contraction) rounds as the separate operations do.
  const F before = a.primary[0];
  a.primary[0] = before + binned_with_low_bit(x * binned_pow2<F>(-P::top_bin_shift));
  const F slice = (before - a.primary[0]) * binned_pow2<F>(P::top_bin_shift - 1);
  x = (x + slice) + slice;
  binned_deposit_folds<1>(a, x);
}

// Adds one element to an accumulator that holds none (binned_smsadd, its renormalisation
// deferred until `endurance` deposits are pending).
template <class F>
__host__ __device__ __forceinline__ void binned_add_element(binned_accumulator<F>& a, F x) {
  if (binned_is_special(a.primary[0]) || binned_is_special(x)) {
    a = binned_special<F>(binned_is_special(a.primary[0]) ? a.primary[0] + x : x);
    return;
  }
  binned_update(a, binned_index_of(x));
  binned_deposit(a, x);
  if (++a.pending >= binned_params<F>::endurance) binned_renormalize(a);
}

// A holding accumulator becomes the accumulator of its element; others are left as they are.
template <class F>
__host__ __device__ __forceinline__ void binned_deposit_held(binned_accumulator<F>& a) {
  if (a.pending != binned_accumulator<F>::kHolding) return;
  const F held = a.primary[0];
  a = binned_accumulator<F>{};
  binned_add_element(a, held);
}

// Everything but the fast path: a holding accumulator's element first, then x. Out of line on the
// device, so that a tile's unrolled loop holds one copy of it, not one per element.
template <class F>
__host__ __device__ WARPFOLD_BINNED_OUT_OF_LINE binned_accumulator<F> binned_add_slow(binned_accumulator<F> a, F x) {
  binned_deposit_held(a);
  binned_add_element(a, x);
  return a;
}

// Adds x to the accumulator (any state). The fast path is the deposit alone: the index covers x
// and this deposit leaves fewer than `endurance` pending, so no renormalisation is due.
template <class F>
__host__ __device__ __forceinline__ void binned_add(binned_accumulator<F>& a, F x) {
  if (binned_magnitude(x) < a.fast_below && a.pending < binned_params<F>::endurance - 1) {
    binned_deposit_folds<0>(a, x);
    ++a.pending;
  } else {
    a = binned_add_slow(a, x);
  }
}

// The canonical form of an accumulator's sum: renormalised, no element held, a special sum with
// its other fields cleared. Two accumulators of the same multiset of elements are bitwise equal
// in this form.
template <class F>
__host__ __device__ __forceinline__ binned_accumulator<F> binned_canonical(binned_accumulator<F> a) {
  binned_deposit_held(a);
  if (binned_is_special(a.primary[0])) return binned_special<F>(a.primary[0]);
  binned_renormalize(a);
  return a;
}

// The sum of two accumulators (binned_smsmadd), canonical. Every step is exact (the primaries'
// offsets from their bases add within the binade, the carries are integers), so merging is
// associative and commutative bit for bit.
template <class F>
__host__ __device__ WARPFOLD_BINNED_OUT_OF_LINE binned_accumulator<F> binned_merge(binned_accumulator<F> a,
                                                                                  binned_accumulator<F> b) {
  a = binned_canonical(a);
  b = binned_canonical(b);
  if (b.primary[0] == F(0)) return a;
  if (a.primary[0] == F(0)) return b;
  if (binned_is_special(a.primary[0]) || binned_is_special(b.primary[0]))
    return binned_special<F>(a.primary[0] + b.primary[0]);
  const int ia = binned_index(a), ib = binned_index(b);
  const int index = ia < ib ? ia : ib;
  binned_raise(a, index);
  binned_raise(b, index);
WARPFOLD_BINNED_UNROLL
  for (int j = 0; j < binned_params<F>::folds; ++j) {
    a.primary[j] += b.primary[j] - binned_bin_base<F>(index + j);
    a.carry[j] += b.carry[j];
  }
  binned_renormalize(a);
  return a;
}

// The value of a canonical binned float sum (binned_ssmconv): the carries and primaries added
// in double from the top bin down, then rounded to float. Every product is a power-of-two
// scaling, exact, so a fused multiply-add rounds as the separate operations do.
__host__ __device__ inline float binned_convert(const binned_accumulator<float>& a) {
  using P = binned_params<float>;
  const int index = binned_index(a);
  const auto base = [index](int j) { return binned_bin_base<float>(index + j); };
  const auto unit = [&base](int j) { return double(base(j)) / 6.0; };  // a carry's quarter-binade
  const double expansion = binned_pow2<double>(P::top_bin_shift);
  double y = 0.0;
  int j = 1;
  if (index == 0) {
    y += double(a.carry[0]) * unit(0) * expansion;
    y += double(a.carry[1]) * unit(1);
    y += double(a.primary[0] - base(0)) * expansion;
    j = 2;
  } else {
    y += double(a.carry[0]) * unit(0);
  }
  for (; j < P::folds; ++j) {
    y += double(a.carry[j]) * unit(j);
    y += double(a.primary[j - 1] - base(j - 1));
  }
  y += double(a.primary[P::folds - 1] - base(P::folds - 1));
  return float(y);
}

// The value of a canonical binned double sum (binned_ddmconv): as for float, in double itself,
// with the top bins scaled down first so that no partial sum overflows before the last.
__host__ __device__ inline double binned_convert(const binned_accumulator<double>& a) {
  using P = binned_params<double>;
  constexpr int folds = P::folds;
  const int index = binned_index(a);
  const auto base = [index](int j) { return binned_bin_base<double>(index + j); };
  const auto unit = [&base](int j) { return base(j) / 6.0; };
  double y = 0.0;
  int j = 0;
  if (index > (3 * P::mant_dig) / P::width) {
    y += a.carry[0] * unit(0);
    for (j = 1; j < folds; ++j) {
      y += a.carry[j] * unit(j);
      y += a.primary[j - 1] - base(j - 1);
    }
    return y + (a.primary[folds - 1] - base(folds - 1));
  }
  const double scale_down = binned_pow2<double>(-(2 * P::mant_dig - P::width));
  const double scale_up = binned_pow2<double>(2 * P::mant_dig - P::width);
  const double expansion = binned_pow2<double>(P::top_bin_shift);
  const int left = (3 * P::mant_dig) / P::width - index;
  const int scaled = left < folds ? left : folds;  // ≥ 0 here
  if (index == 0) {
    y += a.carry[0] * (unit(0) * scale_down * expansion);
    y += a.carry[1] * (unit(1) * scale_down);
    y += (a.primary[0] - base(0)) * scale_down * expansion;
    j = 2;
  } else {
    y += a.carry[0] * (unit(0) * scale_down);
    j = 1;
  }
  for (; j < scaled; ++j) {
    y += a.carry[j] * (unit(j) * scale_down);
    y += (a.primary[j - 1] - base(j - 1)) * scale_down;
  }
  if (j == folds) return (y + (a.primary[folds - 1] - base(folds - 1)) * scale_down) * scale_up;
  y *= scale_up;
  if (binned_is_special(y)) return y;
  for (; j < folds; ++j) {
    y += a.carry[j] * unit(j);
    y += a.primary[j - 1] - base(j - 1);
  }
  return y + (a.primary[folds - 1] - base(folds - 1));
}

// The sum an accumulator holds, rounded to F: +0 when empty, the (canonical) special value.
template <class F>
__host__ __device__ WARPFOLD_BINNED_OUT_OF_LINE F binned_value(binned_accumulator<F> a) {
  const binned_accumulator<F> c = binned_canonical(a);
  if (binned_is_special(c.primary[0])) return c.primary[0];
  if (c.primary[0] == F(0)) return F(0);
  return binned_convert(c);
}

// The accumulated type of an element type: double for double, float for float, half and
// bfloat16 (their values convert to float exactly).
template <class T>
using binned_float_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
inline constexpr bool binned_input = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                     std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The operator of reproducible_sum's reduce: adds a held element into the other accumulator
// (one deposit), merges two accumulators otherwise.
struct binned_plus {
  template <class F>
  __host__ __device__ __forceinline__ binned_accumulator<F> operator()(const binned_accumulator<F>& a,
                                                                       const binned_accumulator<F>& b) const {
    constexpr auto kHolding = binned_accumulator<F>::kHolding;
    binned_accumulator<F> r = b.pending == kHolding ? a : b;
    if (b.pending == kHolding) binned_add(r, b.primary[0]);
    else if (a.pending == kHolding) binned_add(r, a.primary[0]);
    else r = binned_merge(a, b);
    return r;
  }
};

// The form of reproducible_sum's reduce (see reduce_forms.cuh). lift holds the element, so that a
// fold of op(acc, lift(x)) deposits it; accumulate deposits it directly. Renormalisation is the
// accumulator's own affair: accumulate may be called any number of times in a row, since the
// accumulator counts its pending deposits and renormalises itself at ReproBLAS's endurance, and
// op and finish take accumulators in any state.
template <class F>
struct binned_sum_form {
  template <class Acc, class T>
  __host__ __device__ __forceinline__ Acc lift(const T& x, uint64_t) const {
    static_assert(std::is_same_v<Acc, binned_accumulator<F>>, "reproducible_sum folds binned accumulators");
    return binned_holding(static_cast<F>(x));
  }
  template <class Acc, class T>
  __host__ __device__ __forceinline__ void accumulate(Acc& acc, const T& x, uint64_t) const {
    binned_add(acc, static_cast<F>(x));
  }
  template <class Op, class Acc>
  __host__ __device__ __forceinline__ F finish(const Op&, const Acc& init, const Acc& total, bool has_total) const {
    return binned_value(has_total ? total : init);
  }
};

}  // namespace warpfold::detail
