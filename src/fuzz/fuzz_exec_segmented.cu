// Segmented and axis fuzz cases: warpfold::segmented_reduce over random offsets (empty, single,
// short and long segments, reversed pairs, 32- or 64-bit offsets) and warpfold::reduce_axis over
// a random permutation of a 3-D buffer's dims (rows, columns and strided rows; zero extents),
// every output against a CPU reference: integer sums and argmax indices exact, float sums within
// (len + 2)·u·Σ|x| of the double accumulator, NaN and +inf as ops.cuh documents.
#include "fuzz/fuzz_exec_common.cuh"

#include <warpfold/reduce_axis.cuh>
#include <warpfold/segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace warpfold::fuzz {
namespace {

using detail::first_extreme_index;
using detail::run_outputs;
using detail::upload;

constexpr uint64_t kMaxSegments = uint64_t(1) << 20;  // keeps a case's CPU side short

// The reduction's outputs: the elements of output k are visit(k, f), in order along it.
struct Segments {
  std::vector<int64_t> begin, end;  // end <= begin: empty, init
};

// Lengths mostly around a log-uniform typical length, with empty and single segments, and now and
// then one segment taking the rest of the input; 1 in 16 pairs reversed (end < begin).
Segments draw_segments(uint64_t n, splitmix64& rng) {
  const uint64_t typical = uint64_t(std::exp2(rng.unit() * std::log2(double(n) + 1)));
  Segments s;
  uint64_t at = 0;
  do {
    const uint64_t r = rng.below(10);
    uint64_t len = r == 0 ? 0 : r == 1 ? 1 : r == 2 ? n - at : rng.below(2 * typical + 1);
    len = std::min(len, n - at);
    const bool reversed = len > 1 && rng.below(16) == 0;
    s.begin.push_back(int64_t(reversed ? at + len : at));
    s.end.push_back(int64_t(reversed ? at : at + len));
    at += len;
  } while (at < n && s.begin.size() < kMaxSegments);
  return s;
}

// A [d0][d1][d2] buffer of at most n elements (n = 0: one extent zero), seen with its dims in a
// random order as [outer][axis][inner]: each of reduce_axis's paths comes up.
axis_shape draw_axis_shape(uint64_t n, splitmix64& rng) {
  uint64_t d[3];
  if (n == 0) {
    d[0] = 1 + rng.below(3);
    d[1] = 0;
    d[2] = 1 + rng.below(3);
  } else {
    const auto log_uniform = [&](uint64_t most) { return std::max<uint64_t>(1, uint64_t(std::exp2(rng.unit() * std::log2(double(most))))); };
    d[0] = log_uniform(n);
    d[1] = log_uniform(n / d[0]);
    d[2] = std::max<uint64_t>(1, n / (d[0] * d[1]));
  }
  const int64_t stride[3] = {int64_t(d[1] * d[2]), int64_t(d[2]), 1};
  int order[3] = {0, 1, 2};
  for (int i = 2; i > 0; --i) std::swap(order[i], order[rng.below(uint64_t(i) + 1)]);
  return {d[order[0]], d[order[1]], d[order[2]], stride[order[0]], stride[order[1]], stride[order[2]]};
}

template <class T>
std::vector<T> make_data(const FuzzCase& c, splitmix64& rng) {
  std::vector<T> v(c.n);
  if constexpr (std::is_floating_point_v<T>) {
    const bool ties = rng.below(2) == 0;  // argmax: values on a coarse grid, many ties
    for (auto& x : v) {
      const double u = 2 * rng.unit() - 1;
      x = T(ties ? std::round(u * 8) / 8 : u);
    }
    if (c.n > 0 && c.nan) v[rng.below(c.n)] = std::numeric_limits<T>::quiet_NaN();
    if (c.n > 0 && c.inf) v[rng.below(c.n)] = std::numeric_limits<T>::infinity();
  } else if constexpr (sizeof(T) == 1) {
    for (auto& x : v) x = T(rng() & 0xff);
  } else {
    for (auto& x : v) x = T(int64_t(rng.below(2u << 20)) - (1 << 20));
  }
  return v;
}

constexpr double kInit = 0.25;  // float sums' init; integer sums start from 3

// "" where output `got` of the elements `x` is right, else what was expected.
template <class T, class Out>
std::string check_output(const Out& got, const std::vector<T>& x) {
  if constexpr (std::is_same_v<Out, key_value<T>>) {
    const auto before = [](T a, T b) { return std::isnan(a) ? !std::isnan(b) : !std::isnan(b) && a > b; };
    const uint64_t expected = first_extreme_index(x, before);
    return got.index == expected ? "" : "index " + std::to_string(expected) + ", got " + std::to_string(got.index);
  } else if constexpr (std::is_integral_v<T>) {
    int64_t expected = 3;
    for (T v : x) expected += v;
    return got == expected ? "" : std::to_string(expected) + ", got " + std::to_string(got);
  } else {
    long double sum = kInit, magnitude = kInit;
    bool nan = false, inf = false;
    for (T v : x) {
      nan |= std::isnan(v);
      inf |= std::isinf(v);
      sum += v;
      magnitude += std::fabs(v);
    }
    const double bound = double(x.size() + 2) * (std::numeric_limits<double>::epsilon() / 2) * double(magnitude);
    const bool ok = nan ? std::isnan(got) : inf ? got == std::numeric_limits<double>::infinity()
                                                : std::fabs(got - double(sum)) <= bound;
    return ok ? "" : std::to_string(double(sum)) + " (bound " + std::to_string(bound) + "), got " + std::to_string(got);
  }
}

// Every output against check_output; visit(k, push) gives output k's elements in order.
template <class T, class Out, class Visit>
FuzzOutcome check_all(const std::vector<Out>& got, Visit&& visit, const std::string& where) {
  std::vector<T> x;
  for (uint64_t k = 0; k < got.size(); ++k) {
    x.clear();
    visit(k, [&](T v) { x.push_back(v); });
    const std::string wrong = check_output<T>(got[k], x);
    if (!wrong.empty()) {
      return {false, where + ", output " + std::to_string(k) + " of " + std::to_string(got.size()) + " (" +
                         std::to_string(x.size()) + " elements): expected " + wrong};
    }
  }
  return {true, ""};
}

template <class T, class Offset, class Out>
FuzzOutcome run_segmented(const FuzzCase& c, FuzzBuffers& b, const T* d, const std::vector<T>& data, splitmix64& rng) {
  const Segments s = draw_segments(c.n, rng);
  const uint64_t count = s.begin.size();
  const std::vector<Offset> begin(s.begin.begin(), s.begin.end()), end(s.end.begin(), s.end.end());
  harness::DeviceBuffer<Offset> d_begin(count), d_end(count);
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(d_begin.get(), begin.data(), count * sizeof(Offset), cudaMemcpyHostToDevice, b.stream));
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(d_end.get(), end.data(), count * sizeof(Offset), cudaMemcpyHostToDevice, b.stream));
  const std::vector<Out> got = run_outputs<Out>(b, count, [&](void* t, size_t& bytes, Out* o) {
    if constexpr (std::is_same_v<Out, key_value<T>>) {
      return segmented_argmax(t, bytes, d, o, count, d_begin.get(), d_end.get(), b.stream);
    } else {
      return segmented_reduce(t, bytes, d, o, count, d_begin.get(), d_end.get(), plus{}, Out(std::is_integral_v<T> ? 3 : kInit), b.stream);
    }
  });
  const auto visit = [&](uint64_t k, auto&& push) {
    for (int64_t i = s.begin[k]; i < s.end[k]; ++i) push(data[size_t(i)]);
  };
  return check_all<T>(got, visit, std::to_string(count) + " segments, " + std::to_string(sizeof(Offset) * 8) + "-bit offsets");
}

template <class T, class Out>
FuzzOutcome run_axis(const FuzzCase& c, FuzzBuffers& b, const T* d, const std::vector<T>& data, splitmix64& rng) {
  const axis_shape s = draw_axis_shape(c.n, rng);
  const uint64_t count = s.outer * s.inner;
  const std::vector<Out> got = run_outputs<Out>(b, count, [&](void* t, size_t& bytes, Out* o) {
    if constexpr (std::is_same_v<Out, key_value<T>>) {
      return argmax_axis(t, bytes, d, o, s, b.stream);
    } else {
      return reduce_axis(t, bytes, d, o, s, plus{}, Out(std::is_integral_v<T> ? 3 : kInit), b.stream);
    }
  });
  const auto visit = [&](uint64_t k, auto&& push) {
    const int64_t base = int64_t(k / s.inner) * s.outer_stride + int64_t(k % s.inner) * s.inner_stride;
    for (uint64_t a = 0; a < s.axis; ++a) push(data[size_t(base + int64_t(a) * s.axis_stride)]);
  };
  const std::string where = "shape [" + std::to_string(s.outer) + "][" + std::to_string(s.axis) + "][" +
                            std::to_string(s.inner) + "], strides " + std::to_string(s.outer_stride) + ", " +
                            std::to_string(s.axis_stride) + ", " + std::to_string(s.inner_stride);
  return check_all<T>(got, visit, where);
}

template <class T, class Out>
FuzzOutcome run_typed(const FuzzCase& c, FuzzBuffers& b) {
  splitmix64 rng{c.seed ^ 0x5e9};
  const std::vector<T> data = make_data<T>(c, rng);
  const T* d = upload(data, c.offset, b);
  if (c.layout == FuzzLayout::axis) return run_axis<T, Out>(c, b, d, data, rng);
  return rng.below(2) == 0 ? run_segmented<T, int32_t, Out>(c, b, d, data, rng)
                           : run_segmented<T, int64_t, Out>(c, b, d, data, rng);
}

}  // namespace

FuzzOutcome run_segmented_case(const FuzzCase& c, FuzzBuffers& b) {
  if (!segmentable(c.type, c.op)) return {false, "not a segmented case"};
  switch (c.type) {
    case FuzzType::f32:
      return c.op == FuzzOp::argmax ? run_typed<float, key_value<float>>(c, b) : run_typed<float, double>(c, b);
    case FuzzType::i32: return run_typed<int32_t, int64_t>(c, b);
    case FuzzType::i8: return run_typed<int8_t, int64_t>(c, b);
    default: return {false, "not a segmented case"};
  }
}

}  // namespace warpfold::fuzz
