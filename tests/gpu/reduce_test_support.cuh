#pragma once
// Differential testing of warpfold::reduce against CPU references: fresh random data per case,
// awkward sizes, every byte offset the type allows, and a rerun to check reproducibility.

#include "gpu/gpu_test_support.hpp"

#include "harness/host_float_convert.hpp"
#include "harness/two_phase.hpp"

#include <warpfold/reduce.cuh>

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace warpfold::testing {

// Sizes: empty, tiny, around vector and block boundaries, 2^k ± 1, not multiples of anything.
inline const std::vector<uint64_t>& reduce_sizes() {
  // What the sizes reach through the dispatch (takes_wide_tiles, plan_reduce). 4-byte elements:
  // up to 4096 one narrow tile, to 16384 one block of wide tiles; 2^20 fills exactly 256 narrow
  // tiles and blocks (one partial per combiner thread), 2^20 - 1 leaves the last tile one short;
  // above 4 MiB the wide kernel (tiles of 8192): 2^20 + 7 takes 129 tiles and blocks, 2^21 + 5
  // 257 tiles shared by 256 blocks. 2-byte elements stay narrow (tiles of 8192): 2^21 + 5 takes
  // 257 tiles shared by 256 blocks. 8-byte elements take the wide kernel above 2^19 (tiles of
  // 4096): 2^21 + 5 takes 513 tiles over a grid past 256 blocks, two partials for some combiner
  // threads, as accumulators above 8 bytes do in the narrow kernel (argmin and argmax: 2^21 + 5
  // floats over more than 256 blocks). The edges of the other widths, each with its neighbours:
  // 2048 (8-byte elements: one narrow tile, then one wide block), 4096 (4 bytes: one narrow
  // tile), 8192 (2 bytes: one tile), 16384 (4 bytes: one wide block; 1 byte: one tile), 2^19
  // (8 bytes: the wide kernel above 4 MiB). The wide and bulk kernels' own tests name their
  // kernel at every size.
  // A representative run (representative_run) keeps one size past each edge, and the empty,
  // scalar-only and sub-block sizes: every path above, fewer of its neighbours.
  static const std::vector<uint64_t> sizes = [] {
    std::vector<uint64_t> all{0,     1,     2,     3,     15,    16,    17,    31,    33,    255,
                              256,   257,   1000,  2047,  2048,  2049,  4095,  4096,  4097,  8191,
                              8192,  8193,  16383, 16384, 16385, 65535, (1u << 16) + 3,
                              (1u << 19) - 1, 1u << 19, (1u << 19) + 1, (1u << 20) - 1, 1u << 20,
                              (1u << 20) + 7, (1u << 21) + 5};
    if (representative_run()) {
      all = {0, 1, 17, 257, 2049, 4097, 8193, 16385, (1u << 16) + 3, (1u << 19) + 1, (1u << 20) - 1, (1u << 21) + 5};
    }
    std::vector<uint64_t> kept;
    for (uint64_t n : all) {
      if (n <= max_test_n()) kept.push_back(n);
    }
    return kept;
  }();
  return sizes;
}

using harness::from_double;
using harness::to_double;

// Random values of T in [lo, hi]: integers uniform (bounds as long double, which holds every
// 64-bit integer exactly: a double would round INT64_MAX up and out of range), floats uniform in
// the real interval.
template <class T>
std::vector<T> random_values(size_t n, uint64_t seed, long double lo, long double hi) {
  if (!(lo <= hi)) throw std::invalid_argument("random_values: empty range");
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    using Wide = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    if (lo < (long double)std::numeric_limits<T>::min() || hi > (long double)std::numeric_limits<T>::max())
      throw std::invalid_argument("random_values: range beyond the type");
    std::uniform_int_distribution<Wide> d{static_cast<Wide>(lo), static_cast<Wide>(hi)};
    for (auto& x : v) x = T(d(gen));
  } else {
    std::uniform_real_distribution<double> d{double(lo), double(hi)};
    for (auto& x : v) x = from_double<T>(d(gen));
  }
  return v;
}

// A data maker for the checks below: fresh values for (n, seed).
template <class T>
auto uniform_data(long double lo, long double hi) {
  return [lo, hi](uint64_t n, uint64_t seed) { return random_values<T>(n, seed, lo, hi); };
}

// Values whose sum depends strongly on the order of the additions: 1000 + u in the first half,
// -(1000 + u) in the second (u uniform in [0, 1)). Partial sums grow far larger than the total,
// so every fold order rounds them differently, and two orders differ by thousands of units in
// the last place of the total (a model of two grids' folds: 3·10^4 to 5·10^6). With values of one
// scale (uniform in [-1, 1]) the partials stay below the total, two orders differ by a few units,
// and now and then by none, as if the order had not changed.
template <class T>
std::vector<T> order_sensitive_values(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u{0.0, 1.0};
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = from_double<T>((i < n / 2 ? 1.0 : -1.0) * (1000.0 + u(gen)));
  return v;
}

// Places `value` once, at index 0, n - 1 or a random index (chosen by the seed): the head and
// the tail are where a reduce most easily drops an element.
template <class T>
void plant(std::vector<T>& data, T value, uint64_t seed) {
  if (data.empty()) return;
  const uint64_t n = data.size();
  const uint64_t where = seed % 3 == 0 ? 0 : seed % 3 == 1 ? n - 1 : (seed >> 8) % n;
  data[where] = value;
}

// Data whose minimum (or maximum) is one planted element, the type's extreme, that no other
// element reaches: a reduce that drops that element's tile gets a different answer.
template <class T>
auto data_with_unique_extreme(bool minimum) {
  return [minimum](uint64_t n, uint64_t seed) {
    using lim = std::numeric_limits<T>;
    auto data = minimum ? random_values<T>(n, seed, (long double)lim::min() + 1, (long double)lim::max())
                        : random_values<T>(n, seed, (long double)lim::min(), (long double)lim::max() - 1);
    plant(data, minimum ? lim::min() : lim::max(), seed);
    return data;
  };
}

// Odd values over the type's range: their product is odd, so it never collapses to 0 (as a
// product of random integers does after a few dozen factors of 2) and every factor counts.
template <class T>
auto odd_data() {
  return [](uint64_t n, uint64_t seed) {
    auto data = random_values<T>(n, seed, (long double)std::numeric_limits<T>::min(),
                                 (long double)std::numeric_limits<T>::max());
    for (auto& x : data) x = T(x | T(1));
    return data;
  };
}

// For bit_and (`set` false) and bit_or (`set` true): every element is all ones (all zeros) but a
// few, each clearing (setting) one random bit, one of them in the last element. Random full-width
// data would make the and 0 and the or all ones after a few dozen elements, whatever is dropped.
template <class T>
auto sparse_bit_data(bool set) {
  return [set](uint64_t n, uint64_t seed) {
    constexpr unsigned kBits = 8 * sizeof(T);
    std::vector<T> data(n, set ? T(0) : T(~T(0)));
    if (n == 0) return data;
    std::mt19937_64 gen(seed);
    auto flip = [&](uint64_t i) {
      const T bit = T(T(1) << (gen() % kBits));
      data[i] = set ? T(data[i] | bit) : T(data[i] & T(~bit));
    };
    for (unsigned k = 0; k < kBits / 2; ++k) flip(gen() % n);
    flip(n - 1);
    return data;
  };
}

// Floating-point data whose every partial sum is exact in float, in any order, with a nonzero
// mean (so a dropped tile shows): multiples of 1/4 in [1/4, 3/4] up to 2^22 elements (with an
// init of 1/2 every sum stays below 2^22, where float holds every multiple of 1/4), 0 or 1 beyond
// (sums below 2^24 up to 2^24 - 1 elements). half and bfloat16 hold all of these exactly.
template <class T>
auto exact_sum_data() {
  return [](uint64_t n, uint64_t seed) {
    if (n >= (uint64_t(1) << 24)) throw std::invalid_argument("exact_sum_data: n must stay below 2^24");
    std::mt19937_64 gen(seed);
    std::vector<T> data(n);
    const bool quarters = n <= (uint64_t(1) << 22);
    for (auto& x : data) x = from_double<T>(quarters ? double(1 + gen() % 3) / 4 : double(gen() % 2));
    return data;
  };
}

// Device copy of `values` placed `offset_elems` elements past a 256-byte-aligned allocation. The
// bytes before and the 32 after the data are poison (0x7f or 0xff, by the offset's parity: huge
// values or NaN for floating point, large or negative values for integers), not the zeros fresh
// memory often holds, so a read past either end changes the result.
template <class T>
class offset_buffer {
 public:
  static constexpr size_t kSlackBytes = 32;
  offset_buffer(const std::vector<T>& values, size_t offset_elems) {
    const size_t bytes = (values.size() + offset_elems) * sizeof(T) + kSlackBytes;
    EXPECT_EQ(cudaMalloc(&base_, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_, offset_elems % 2 ? 0xff : 0x7f, bytes), cudaSuccess);
    data_ = static_cast<T*>(base_) + offset_elems;
    if (!values.empty()) {
      EXPECT_EQ(cudaMemcpy(data_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  offset_buffer(const offset_buffer&) = delete;
  offset_buffer& operator=(const offset_buffer&) = delete;
  ~offset_buffer() { cudaFree(base_); }
  const T* get() const { return data_; }

 private:
  void* base_ = nullptr;
  T* data_ = nullptr;
};

// Runs a two-phase warpfold call (`call(temp, bytes, out)`) on the default stream and returns
// *out; a CUDA error fails the test (warpfold::cuda_error, naming it).
using harness::run_two_phase;

// `all`, or in a representative run (representative_run) one of them, drawn from the test's seeds.
template <class V>
std::vector<V> all_or_one(std::vector<V> all) {
  if (representative_run() && !all.empty()) return {all[new_seed() % all.size()]};
  return all;
}

// Byte offsets 0..15 that keep a T* aligned to T: element offsets 0 .. 16/sizeof(T) - 1 (one of
// them in a representative run).
template <class T>
std::vector<size_t> element_offsets() {
  std::vector<size_t> v;
  for (size_t b = 0; b < 16; b += sizeof(T)) v.push_back(b / sizeof(T));
  return all_or_one(v);
}

template <class T>
bool bitwise_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

inline std::string where(uint64_t n, size_t offset, uint64_t seed) {
  return "n = " + std::to_string(n) + ", offset " + std::to_string(offset) + " elements, seed " + std::to_string(seed);
}

// Checks a two-phase reduce, `call(temp, bytes, in, out, n)`, against the CPU fold `ref_op` of
// init and the elements converted to Acc, exactly, at every size and every offset, on fresh data
// from `make_data(n, seed)`, run twice (the second result must be the first; once in a
// representative run).
template <class T, class Acc, class Ref, class Make, class Call>
void check_exact_reduce(const std::vector<uint64_t>& sizes, Acc init, Ref ref_op, Make make_data, Call call) {
  for (uint64_t n : sizes) {
    const uint64_t seed = new_seed();
    const std::vector<T> data = make_data(n, seed);
    ASSERT_EQ(data.size(), n);
    Acc expected = init;
    for (const T& x : data) expected = ref_op(expected, static_cast<Acc>(x));
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      auto run = [&] {
        return run_two_phase<Acc>([&](void* t, size_t& b, Acc* o) { return call(t, b, buf.get(), o, n); });
      };
      const Acc got = run();
      ASSERT_EQ(got, expected) << where(n, off, seed);
      if (!representative_run()) ASSERT_EQ(run(), got) << "second run: " << where(n, off, seed);
    }
  }
}

// Worst-case bound of our fold order for a sum: each thread folds at most ceil(n / 256)
// elements in sequence, then at most 8 + 5 + 11 tree levels (block, warp, partials) follow; a
// sum of m terms in sequence errs by at most (m - 1)·u·Σ|x| to first order, u the unit roundoff.
inline double sum_bound(uint64_t n, double unit_roundoff, long double abs_sum) {
  const double depth = double(n / 256 + 1) + 24;
  return depth * unit_roundoff * double(abs_sum) + 1e-300;
}

// The exact sum of init and the data (long double) and the sum of their magnitudes, which
// scales the error bound of a floating-point sum.
struct sum_reference {
  long double sum = 0, abs_sum = 0;
};
template <class T>
sum_reference reference_sum(const std::vector<T>& data, double init) {
  sum_reference r{init, std::fabs(init)};
  for (const T& x : data) {
    r.sum += to_double(x);
    r.abs_sum += std::fabs(to_double(x));
  }
  return r;
}

// Checks a floating-point sum with init 0.5, `call(temp, bytes, in, out, n)`, against the long
// double reference within `bound(n, abs_sum)`, at every size and every offset, on fresh random
// data in [-1/2, 1] (a nonzero mean: the sum grows with n, so a lost tile stands out against
// the bound, which grows with the sum of magnitudes), twice: the second result must be bitwise
// the first (every reduce is reproducible; once in a representative run).
template <class T, class Acc, class Bound, class Call>
void check_sum_within_bound(const std::vector<uint64_t>& sizes, Bound bound, Call call) {
  for (uint64_t n : sizes) {
    const uint64_t seed = new_seed();
    const auto data = random_values<T>(n, seed, -0.5, 1.0);
    const sum_reference ref = reference_sum(data, 0.5);
    const double limit = bound(n, ref.abs_sum);
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      auto run = [&] {
        return run_two_phase<Acc>([&](void* t, size_t& b, Acc* o) { return call(t, b, buf.get(), o, n); });
      };
      const Acc got = run();
      ASSERT_LE(std::fabs(double(got) - double(ref.sum)), limit) << where(n, off, seed) << ", got " << double(got);
      if (representative_run()) continue;
      const Acc again = run();
      ASSERT_TRUE(bitwise_equal(got, again)) << "not reproducible: " << where(n, off, seed);
    }
  }
}

}  // namespace warpfold::testing
