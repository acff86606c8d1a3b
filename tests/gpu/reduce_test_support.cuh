#pragma once
// Differential testing of warpfold::reduce against CPU references: fresh random data per case,
// awkward sizes, every byte offset the type allows, and a rerun to check reproducibility.

#include "gpu/gpu_test_support.hpp"

#include "harness/host_float_convert.hpp"

#include <warpfold/reduce.cuh>

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace warpfold::testing {

// Sizes: empty, tiny, around vector and block boundaries, not multiples of anything, and 2^20 + 7.
inline const std::vector<uint64_t>& reduce_sizes() {
  // For 4-byte elements (tiles of 4096): up to 8192 one block reading two tiles; 2^20 fills
  // exactly 256 tiles and blocks (the largest grid whose partials are polled); 2^20 + 7 takes 257
  // tiles, which 256 polling blocks share; 2^21 + 5 takes 513 tiles, 513 blocks and the ticket
  // path (doubles: 1025 tiles, more than one wave of blocks).
  static const std::vector<uint64_t> sizes = [] {
    std::vector<uint64_t> all{0,    1,    2,    3,    15,   16,   17,   31,        33,       255,
                              256,  1000, 4095, 4097, 8191, 8193, (1u << 16) + 3, 1u << 20, (1u << 20) + 7,
                              (1u << 21) + 5};
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

// Random values of T in [lo, hi] (integers uniform; floats uniform in the real interval).
template <class T>
std::vector<T> random_values(size_t n, uint64_t seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> d((long long)lo, (long long)hi);
    for (auto& x : v) x = T(d(gen));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = from_double<T>(d(gen));
  }
  return v;
}

inline uint64_t new_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

// Device copy of `values` placed `offset_elems` elements past a 256-byte-aligned allocation.
template <class T>
class offset_buffer {
 public:
  offset_buffer(const std::vector<T>& values, size_t offset_elems) {
    EXPECT_EQ(cudaMalloc(&base_, (values.size() + offset_elems + 1) * sizeof(T)), cudaSuccess);
    data_ = static_cast<T*>(base_) + offset_elems;
    if (!values.empty()) {
      EXPECT_EQ(cudaMemcpy(data_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  ~offset_buffer() { cudaFree(base_); }
  const T* get() const { return data_; }

 private:
  void* base_ = nullptr;
  T* data_ = nullptr;
};

// Runs a two-phase warpfold call (`call(temp, bytes, out)`) and returns *out.
template <class Out, class Call>
Out run_two_phase(Call&& call) {
  size_t bytes = 0;
  EXPECT_EQ(call(nullptr, bytes, static_cast<Out*>(nullptr)), cudaSuccess);
  void* temp = nullptr;
  Out* out = nullptr;
  EXPECT_EQ(cudaMalloc(&temp, bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&out, sizeof(Out)), cudaSuccess);
  EXPECT_EQ(cudaMemset(out, 0x5a, sizeof(Out)), cudaSuccess);  // poisoned: a missing write shows
  EXPECT_EQ(call(temp, bytes, out), cudaSuccess);
  Out result;
  EXPECT_EQ(cudaMemcpy(&result, out, sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(temp);
  cudaFree(out);
  return result;
}

// Byte offsets 0..15 that keep a T* aligned to T: element offsets 0 .. 16/sizeof(T) - 1.
template <class T>
std::vector<size_t> element_offsets() {
  std::vector<size_t> v;
  for (size_t b = 0; b < 16; b += sizeof(T)) v.push_back(b / sizeof(T));
  return v;
}

template <class T>
bool bitwise_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

inline std::string where(uint64_t n, size_t offset, uint64_t seed) {
  return "n = " + std::to_string(n) + ", offset " + std::to_string(offset) + " elements, seed " + std::to_string(seed);
}

// Checks a two-phase reduce, `call(temp, bytes, in, out, n)`, against the CPU fold `ref_op` of
// init and the elements converted to Acc, exactly, at every size and every offset, on fresh
// random data in [lo, hi].
template <class T, class Acc, class Ref, class Call>
void check_exact_reduce(const std::vector<uint64_t>& sizes, Acc init, Ref ref_op, double lo, double hi, Call call) {
  for (uint64_t n : sizes) {
    const uint64_t seed = new_seed();
    const auto data = random_values<T>(n, seed, lo, hi);
    Acc expected = init;
    for (const T& x : data) expected = ref_op(expected, static_cast<Acc>(x));
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      const Acc got = run_two_phase<Acc>([&](void* t, size_t& b, Acc* o) { return call(t, b, buf.get(), o, n); });
      ASSERT_EQ(got, expected) << where(n, off, seed);
    }
  }
}

// Worst-case bound of our fold order for a sum: each thread folds at most ceil(n / 256)
// elements in sequence, then at most 8 + 5 + 11 tree levels (block, warp, partials) follow, and
// `extra_terms` more in any order (the any-order combine's atomics); a sum of m terms in
// sequence errs by at most (m - 1)·u·Σ|x| to first order, u the unit roundoff.
inline double sum_bound(uint64_t n, double unit_roundoff, long double abs_sum, double extra_terms = 0) {
  const double depth = double(n / 256 + 1) + 24 + extra_terms;
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
// data in [-1, 1], twice: with `reproducible` the second result must be bitwise the first,
// otherwise it must be within the bound too.
template <class T, class Acc, class Bound, class Call>
void check_sum_within_bound(const std::vector<uint64_t>& sizes, bool reproducible, Bound bound, Call call) {
  for (uint64_t n : sizes) {
    const uint64_t seed = new_seed();
    const auto data = random_values<T>(n, seed, -1.0, 1.0);
    const sum_reference ref = reference_sum(data, 0.5);
    const double limit = bound(n, ref.abs_sum);
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      auto run = [&] {
        return run_two_phase<Acc>([&](void* t, size_t& b, Acc* o) { return call(t, b, buf.get(), o, n); });
      };
      const Acc got = run();
      ASSERT_LE(std::fabs(double(got) - double(ref.sum)), limit) << where(n, off, seed) << ", got " << double(got);
      const Acc again = run();
      if (reproducible) {
        ASSERT_TRUE(bitwise_equal(got, again)) << "not reproducible: " << where(n, off, seed);
      } else {
        ASSERT_LE(std::fabs(double(again) - double(ref.sum)), limit) << where(n, off, seed) << ", got " << double(again);
      }
    }
  }
}

}  // namespace warpfold::testing
