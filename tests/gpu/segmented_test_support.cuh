#pragma once
// Differential testing of segmented_reduce and reduce_axis against CPU references: segment
// lengths of every regime (docs/segmented.md), offsets at odd places, empty, one-element and
// reversed segments, fresh data per case, and a rerun on the same temp storage that must give the
// same bits.

#include "gpu/reduce_test_support.cuh"

#include <warpfold/reduce_axis.cuh>
#include <warpfold/segmented_reduce.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace warpfold::testing {

// --- segments ----------------------------------------------------------------------------------

// The regimes of docs/segmented.md, by the lengths they draw (in elements of elem_bytes).
enum class regime { tiny, short_rows, warp, block, long_segments, power_law, empty_tenth };

inline const char* to_string(regime r) {
  static const char* names[] = {"tiny", "short", "warp", "block", "long", "power law", "10% empty"};
  return names[int(r)];
}

inline std::vector<regime> every_regime() {
  return {regime::tiny, regime::short_rows, regime::warp, regime::block, regime::long_segments, regime::power_law,
          regime::empty_tenth};
}

// Lengths of one regime, their total near `budget` elements (at least a few segments). The class
// boundaries are those of segmented_plan.hpp: lanes up to 128 elements, a warp up to 12 KiB, a block
// up to 7 tiles, longer ones cut into pieces.
inline std::vector<uint64_t> regime_lengths(regime r, uint64_t seed, unsigned elem_bytes, uint64_t budget) {
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(elem_bytes);
  const uint64_t tile = uint64_t(detail::kSegmentThreads) * detail::kSegmentInFlight * (16 / elem_bytes);
  const auto between = [&](uint64_t lo, uint64_t hi) { return lo + gen() % (hi - lo + 1); };
  std::vector<uint64_t> lengths;
  uint64_t total = 0;
  const auto add = [&](uint64_t len) {
    lengths.push_back(len);
    total += len;
  };
  switch (r) {
    case regime::tiny:
      while (total < budget) add(between(0, 8));
      break;
    case regime::short_rows:
      while (total < budget) add(between(9, 128));
      break;
    case regime::warp:
      while (total < budget) add(between(129, warp_max));
      break;
    case regime::block:
      while (total < budget) add(between(warp_max + 1, 7 * tile));
      break;
    case regime::long_segments:  // a few long ones among short ones
      while (total < budget) add(gen() % 3 == 0 ? between(8 * tile, 8 * tile + budget / 4) : between(0, 200));
      break;
    case regime::power_law: {  // lengths ~ 1 / x^2, and one segment with half the data
      add(budget / 2);
      while (total < budget) {
        const double u = double(gen() >> 11) * 0x1.0p-53;
        add(std::min<uint64_t>(budget / 8, uint64_t(4.0 / (1.0 - u * 0.999))));
      }
      std::shuffle(lengths.begin(), lengths.end(), gen);
      break;
    }
    case regime::empty_tenth:  // uniform in [0, 2·64], a tenth of them empty
      while (total < budget) add(gen() % 10 == 0 ? 0 : between(0, 128));
      break;
  }
  return lengths;
}

// Segment offsets, begin[s] and end[s], in an input of n elements.
struct segment_set {
  std::vector<int64_t> begin, end;
  uint64_t n = 0;
  bool csr = false;  // end[s] = begin[s + 1]: passed as one array of size() + 1 offsets
  size_t size() const { return begin.size(); }
};

// The lengths laid out from an odd offset. CSR: back to back. Otherwise with gaps of 0 to 4
// elements, in shuffled order, and about one segment in 20 reversed (end before begin: init).
inline segment_set lay_out(const std::vector<uint64_t>& lengths, uint64_t seed, bool csr) {
  std::mt19937_64 gen(seed);
  segment_set s;
  s.csr = csr;
  int64_t pos = 1 + int64_t(gen() % 7);
  for (uint64_t len : lengths) {
    s.begin.push_back(pos);
    s.end.push_back(pos + int64_t(len));
    pos += int64_t(len) + (csr ? 0 : int64_t(gen() % 5));
  }
  s.n = uint64_t(pos) + (csr ? 0 : 3);
  if (!csr) {
    std::vector<size_t> order(s.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::shuffle(order.begin(), order.end(), gen);
    segment_set shuffled = s;
    for (size_t k = 0; k < order.size(); ++k) {
      shuffled.begin[k] = s.begin[order[k]];
      shuffled.end[k] = s.end[order[k]];
      if (gen() % 20 == 0) std::swap(shuffled.begin[k], shuffled.end[k]);
    }
    s = shuffled;
  }
  return s;
}

// A device copy of a vector (of any trivially copyable type).
template <class T>
class device_vector {
 public:
  explicit device_vector(const std::vector<T>& v) : size_(v.size()) {
    EXPECT_EQ(cudaMalloc(&data_, std::max<size_t>(1, v.size()) * sizeof(T)), cudaSuccess);
    if (!v.empty()) EXPECT_EQ(cudaMemcpy(data_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  device_vector(const device_vector&) = delete;
  device_vector& operator=(const device_vector&) = delete;
  ~device_vector() { cudaFree(data_); }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// The offsets of a segment set as the call takes them: begin and end arrays (CSR: one array and
// the same array one further).
template <class Offset>
struct device_offsets {
  device_vector<Offset> first, second;
  const Offset* begin;
  const Offset* end;
  static std::vector<Offset> as(const std::vector<int64_t>& v) { return std::vector<Offset>(v.begin(), v.end()); }
  static std::vector<int64_t> csr_offsets(const segment_set& s) {
    std::vector<int64_t> o = s.begin;
    o.push_back(s.end.empty() ? s.n : s.end.back());
    return o;
  }
  explicit device_offsets(const segment_set& s)
      : first(as(s.csr ? csr_offsets(s) : s.begin)),
        second(as(s.csr ? std::vector<int64_t>{} : s.end)),
        begin(first.get()),
        end(s.csr ? first.get() + 1 : second.get()) {}
};

// Temp storage kept across calls, so that a rerun meets the words its first run left (other tags),
// and output slots poisoned before every call, so that a missing write cannot pass.
class segmented_runner {
 public:
  ~segmented_runner() { cudaFree(temp_); }
  template <class Out, class Call>
  std::vector<Out> run(uint64_t count, Call&& call) {
    size_t bytes = 0;
    EXPECT_EQ(call(nullptr, bytes, static_cast<Out*>(nullptr)), cudaSuccess);
    if (bytes > temp_bytes_) {
      cudaFree(temp_);
      EXPECT_EQ(cudaMalloc(&temp_, bytes), cudaSuccess);
      EXPECT_EQ(cudaMemset(temp_, 0x5a, bytes), cudaSuccess);  // not zeros: words of no call
      temp_bytes_ = bytes;
    }
    Out* out = nullptr;
    EXPECT_EQ(cudaMalloc(&out, std::max<uint64_t>(count, 1) * sizeof(Out)), cudaSuccess);
    EXPECT_EQ(cudaMemset(out, 0x5a, std::max<uint64_t>(count, 1) * sizeof(Out)), cudaSuccess);
    size_t given = temp_bytes_;
    EXPECT_EQ(call(temp_, given, out), cudaSuccess);
    std::vector<Out> got(count);
    if (count > 0) EXPECT_EQ(cudaMemcpy(got.data(), out, count * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(out);
    return got;
  }

 private:
  void* temp_ = nullptr;
  size_t temp_bytes_ = 0;
};

// --- references --------------------------------------------------------------------------------

// The same value: equal, or both NaN; for argmin/argmax results, the same index and value.
template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    const double x = to_double(a), y = to_double(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  } else {
    return a == b;
  }
}
template <class T>
bool same_value(const key_value<T>& a, const key_value<T>& b) {
  return a.index == b.index && same_value(a.value, b.value);
}

// The fold of a line of elements as the library defines it: init for none, op(init, the elements'
// fold) otherwise (the fold in index order: exact for the data these tests check for equality).
template <class Acc, class Op, class Element>
Acc reference_fold(uint64_t len, Acc init, Op op, Element&& element) {
  if (len == 0) return init;
  Acc total = static_cast<Acc>(element(0));
  for (uint64_t j = 1; j < len; ++j) total = op(total, static_cast<Acc>(element(j)));
  return op(init, total);
}

// The first extreme element of a line and its index (NaN most extreme, as ops.cuh orders); {T{}, 0}
// for none.
template <class T, class Element>
key_value<T> reference_arg(uint64_t len, bool minimum, Element&& element) {
  if (len == 0) return {T{}, 0};
  key_value<T> best{element(0), 0};
  for (uint64_t j = 1; j < len; ++j) {
    const T x = element(j);
    if (minimum ? detail::less_nan_first(x, best.value) : detail::greater_nan_first(x, best.value)) best = {x, j};
  }
  return best;
}

// Segment s's elements of the host data: clamped to [0, n) where `clamps`, empty where end <= begin.
// Whether float or double sum `got` of len elements (element(j) the j-th) is within the error
// bound of any order of their additions: len - 1 roundings of at most u·Σ|x| each (u: half F's
// epsilon), compared in a type wider than F.
template <class Element, class F>
::testing::AssertionResult within_sum_bound(uint64_t len, Element&& element, F got) {
  static_assert(std::is_floating_point_v<F>, "a float or double sum");
  using wide = std::conditional_t<sizeof(F) < sizeof(double), double, long double>;
  long double exact = 0, magnitude = 0;
  for (uint64_t j = 0; j < len; ++j) {
    exact += element(j);
    magnitude += std::fabs(element(j));
  }
  const wide u = wide(std::numeric_limits<F>::epsilon()) / 2;
  if (std::fabs(wide(got) - wide(exact)) <= wide(len) * u * wide(magnitude) + 1e-30) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << got << ", exactly " << double(exact);
}

struct segment_range {
  uint64_t begin = 0, len = 0;
};
inline segment_range range_of(const segment_set& s, size_t k, bool clamps) {
  int64_t b = s.begin[k], e = s.end[k];
  if (clamps) {
    b = std::clamp<int64_t>(b, 0, int64_t(s.n));
    e = std::clamp<int64_t>(e, 0, int64_t(s.n));
  }
  return {uint64_t(b), e > b ? uint64_t(e - b) : 0};
}

// Quarters 1/4, 1/2, 3/4: every partial sum of up to 2^22 of them (and init 1/2) is exact in
// float, whatever the order, so a sum must equal the reference bit for bit.
template <class T>
std::vector<T> quarter_values(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = from_double<T>(double(1 + gen() % 3) / 4);
  return v;
}

// Where the checks of a case print from.
inline std::string case_name(const char* what, regime r, bool csr, uint64_t seed) {
  return std::string(what) + ", " + to_string(r) + (csr ? ", CSR offsets" : ", begin/end offsets") + ", seed " +
         std::to_string(seed);
}

// The budget of elements a regime's case draws: 2^20 (2^22 for long segments, whose pieces need
// them), a quarter of that in a representative run (the same classes of length, fewer segments),
// at most WARPFOLD_TEST_MAX_N.
inline uint64_t regime_budget(regime r) {
  const uint64_t want = r == regime::long_segments || r == regime::power_law ? uint64_t(1) << 22 : uint64_t(1) << 20;
  return std::min(representative_run() ? want / 4 : want, max_test_n());
}

// --- the same bits in other arrangements ----------------------------------------------------

// The segments of `s`, each listed twice in a row (begin/end offsets).
inline segment_set listed_twice(const segment_set& s) {
  segment_set twice;
  twice.csr = false;
  twice.n = s.n;
  for (size_t k = 0; k < s.size(); ++k) {
    for (int copy = 0; copy < 2; ++copy) {
      twice.begin.push_back(s.begin[k]);
      twice.end.push_back(s.end[k]);
    }
  }
  return twice;
}

// The same segments in other arrangements: with an empty segment after about every third (still
// CSR, other neighbours in each warp's 32), in shuffled order (begin/end offsets), and each listed
// twice in a row (overlapping). `at[k]`: where segment k of `s` lies in the arrangement.
struct arrangement {
  std::string name;
  segment_set set;
  std::vector<size_t> at;
  bool copies = false;  // segment k also lies at at[k] + 1
};
inline std::vector<arrangement> rearranged(const segment_set& s, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<arrangement> out(4);
  out[0].name = "as laid out";
  out[0].set = s;
  out[1].name = "with empty segments between";
  out[1].set.csr = true;
  out[1].set.n = s.n;
  for (size_t k = 0; k < s.size(); ++k) {
    out[0].at.push_back(k);
    out[1].at.push_back(out[1].set.size());
    out[1].set.begin.push_back(s.begin[k]);
    out[1].set.end.push_back(s.end[k]);
    if (gen() % 3 == 0) {
      out[1].set.begin.push_back(s.end[k]);
      out[1].set.end.push_back(s.end[k]);
    }
  }
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::shuffle(order.begin(), order.end(), gen);
  out[2].name = "shuffled";
  out[2].set.csr = false;
  out[2].set.n = s.n;
  out[2].at.resize(s.size());
  for (size_t k = 0; k < s.size(); ++k) {
    out[2].at[order[k]] = k;
    out[2].set.begin.push_back(s.begin[order[k]]);
    out[2].set.end.push_back(s.end[order[k]]);
  }
  out[3].name = "each listed twice";
  out[3].set = listed_twice(s);
  out[3].copies = true;
  for (size_t k = 0; k < s.size(); ++k) out[3].at.push_back(2 * k);
  return out;
}

// Each segment of `s` (its values `data`, the input `shift` elements into its buffer) summed in
// every arrangement of `rearranged`: its bits are the same in all, its sum within the error bound
// of its additions, its second copy's bits its first's.
template <class T>
void check_same_bits_in_any_arrangement(const segment_set& s, const std::vector<T>& data, size_t shift, uint64_t seed) {
  offset_buffer<T> in(data, shift);
  segmented_runner runner;
  std::vector<T> first;
  for (const arrangement& a : rearranged(s, seed + 3)) {
    const device_offsets<int32_t> off(a.set);
    const std::vector<T> got = runner.run<T>(a.set.size(), [&](void* t, size_t& b, T* o) {
      return segmented_reduce(t, b, in.get(), o, a.set.size(), off.begin, off.end, plus{}, T(0));
    });
    const std::string where = a.name + ", shift " + std::to_string(shift) + ", seed " + std::to_string(seed);
    for (size_t k = 0; k < s.size(); ++k) {
      const segment_range g = range_of(s, k, false);
      const T value = got[a.at[k]];
      if (first.empty()) {
        ASSERT_TRUE(within_sum_bound(g.len, [&](uint64_t j) { return data[g.begin + j]; }, value))
            << "segment " << k << " of length " << g.len << ", " << where;
      } else {
        ASSERT_TRUE(bitwise_equal(value, first[k])) << "segment " << k << " of length " << g.len << ": " << value
                                                    << " against " << first[k] << ", " << where;
      }
      if (a.copies) {
        ASSERT_TRUE(bitwise_equal(value, got[a.at[k] + 1])) << "segment " << k << "'s copies differ, " << where;
      }
    }
    if (first.empty()) {
      for (size_t k = 0; k < s.size(); ++k) first.push_back(got[a.at[k]]);
    }
  }
}

}  // namespace warpfold::testing
