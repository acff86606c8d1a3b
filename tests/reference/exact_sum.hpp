#pragma once
// The exact sum of finite doubles (and so of floats, halves and bfloat16s, which convert exactly),
// held as a fixed-point integer in units of 2^-1074, the smallest subnormal: two's complement
// limbs wide enough for any double times 2^64 terms. Accuracy tests measure a computed sum's error
// against it, exactly.

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace warpfold::testing {

class exact_sum {
 public:
  static constexpr int kUnitExponent = -1074;
  // 2^1024 (past the largest double) over the unit, 64 bits of headroom, a sign bit.
  static constexpr int kLimbs = (1024 - kUnitExponent + 64 + 1 + 63) / 64;

  void add(double x) {
    if (!std::isfinite(x)) throw std::invalid_argument("exact_sum takes finite values");
    if (x == 0) return;
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(x), &exponent);  // |x| = fraction · 2^exponent
    uint64_t mantissa = uint64_t(std::ldexp(fraction, 53));        // exact: 53 bits
    int position = exponent - 53 - kUnitExponent;                  // of the mantissa's last bit
    if (position < 0) {                                            // a subnormal: low bits are 0
      mantissa >>= -position;
      position = 0;
    }
    const int limb = position / 64, offset = position % 64;
    const uint64_t low = mantissa << offset, high = offset ? mantissa >> (64 - offset) : 0;
    if (x > 0) add_at(limb, low, high);
    else subtract_at(limb, low, high);
  }

  bool negative() const { return limbs_[kLimbs - 1] >> 63; }

  // The value, rounded to long double (from its top 128 bits: far below any bound checked).
  long double value() const {
    exact_sum magnitude = *this;
    if (negative()) magnitude.negate();
    int top = kLimbs - 1;
    while (top >= 0 && magnitude.limbs_[top] == 0) --top;
    if (top < 0) return 0;
    long double v = 0;
    for (int k = top; k >= 0 && k >= top - 2; --k)
      v += std::ldexp((long double)magnitude.limbs_[k], 64 * k + kUnitExponent);
    return negative() ? -v : v;
  }

 private:
  void add_at(int limb, uint64_t low, uint64_t high) {
    uint64_t carry = 0;
    for (int k = limb; k < kLimbs; ++k) {
      const uint64_t term = k == limb ? low : k == limb + 1 ? high : 0;
      const uint64_t before = limbs_[k];
      limbs_[k] = before + term + carry;
      carry = (limbs_[k] < before || (carry && limbs_[k] == before)) ? 1 : 0;
      if (k > limb && carry == 0) break;
    }
  }
  void subtract_at(int limb, uint64_t low, uint64_t high) {
    uint64_t borrow = 0;
    for (int k = limb; k < kLimbs; ++k) {
      const uint64_t term = k == limb ? low : k == limb + 1 ? high : 0;
      const uint64_t before = limbs_[k];
      limbs_[k] = before - term - borrow;
      borrow = (before < term || (before - term) < borrow) ? 1 : 0;
      if (k > limb && borrow == 0) break;
    }
  }
  void negate() {
    uint64_t carry = 1;
    for (auto& l : limbs_) {
      l = ~l + carry;
      carry = (carry && l == 0) ? 1 : 0;
    }
  }

  std::array<uint64_t, kLimbs> limbs_{};
};

}  // namespace warpfold::testing
