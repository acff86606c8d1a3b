// Floating-point fuzz cases: min, max and arg results exact; sums within warpfold's documented
// bound of a long double reference; NaN and +inf handled as include/warpfold/ops.cuh documents.
#include "fuzz/fuzz_exec_common.cuh"

#include "harness/host_float_convert.hpp"

#include <warpfold/reduce.cuh>

#include <cmath>
#include <limits>
#include <type_traits>

namespace warpfold::fuzz {
namespace {

using detail::check_arg_index;
using detail::first_extreme_index;
using detail::run_call;
using detail::upload;

using harness::from_double;
using harness::to_double;

// The accumulator of `sum`: double for float and double, float for the 16-bit types.
template <class T>
using sum_acc_t = std::conditional_t<(sizeof(T) == 2), float, double>;

template <class T>
std::vector<T> make_data(const FuzzCase& c, splitmix64& rng) {
  std::vector<T> v(c.n);
  const double lo = c.op == FuzzOp::product ? 0.999 : -1.0, hi = c.op == FuzzOp::product ? 1.001 : 1.0;
  const bool ties = rng.below(2) == 0;  // argmin/argmax: values on a coarse grid, many ties
  for (auto& x : v) {
    const double u = lo + (hi - lo) * rng.unit();
    x = from_double<T>(ties ? std::round(u * 8) / 8 : u);
  }
  if (c.n > 0 && c.nan) {
    for (int k = 0, count = 1 + int(rng.below(3)); k < count; ++k) v[rng.below(c.n)] = from_double<T>(std::nan(""));
  }
  if (c.n > 0 && c.inf) v[rng.below(c.n)] = from_double<T>(std::numeric_limits<double>::infinity());
  return v;
}

struct Reference {
  long double sum = 0, abs_sum = 0;
  bool nan = false, pos_inf = false;
};

template <class T>
Reference reference(const std::vector<T>& data, double init) {
  Reference r;
  r.sum = init;
  r.abs_sum = std::fabs(init);
  for (T x : data) {
    const double v = to_double(x);
    if (std::isnan(v)) r.nan = true;
    else if (std::isinf(v)) r.pos_inf = true;
    else {
      r.sum += v;
      r.abs_sum += std::fabs(v);
    }
  }
  return r;
}

FuzzOutcome within(double got, const Reference& r, double bound) {
  const double expected = r.nan ? std::nan("") : r.pos_inf ? std::numeric_limits<double>::infinity() : double(r.sum);
  const bool ok = std::isnan(expected) ? std::isnan(got)
                  : std::isinf(expected) ? got == expected
                                         : std::fabs(got - expected) <= bound;
  if (ok) return {true, ""};
  return {false, "expected " + std::to_string(expected) + " (bound " + std::to_string(bound) + ") got " + std::to_string(got)};
}

// warpfold's fold order: at most n/256 + 1 elements in sequence per thread, then at most 24 tree
// levels; a sequence of m additions errs by at most (m - 1)·u·Σ|x| to first order.
double sum_bound(uint64_t n, double u, long double abs_sum) { return (double(n / 256 + 1) + 24) * u * double(abs_sum); }

template <class T>
FuzzOutcome run_typed(const FuzzCase& c, FuzzBuffers& b) {
  splitmix64 rng{c.seed ^ 0x5eed};
  const std::vector<T> data = make_data<T>(c, rng);
  const T* d = upload(data, c.offset, b);
  const uint64_t n = c.n;
  switch (c.op) {
    case FuzzOp::sum: {
      using A = sum_acc_t<T>;
      const A got = run_call<A>(b, [&](void* t, size_t& s, A* o) { return reduce(t, s, d, o, n, plus{}, A(0.25), b.stream); });
      const Reference r = reference(data, 0.25);
      return within(double(got), r, sum_bound(n, std::numeric_limits<A>::epsilon() / 2, r.abs_sum));
    }
    case FuzzOp::compensated_sum: {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const T got = run_call<T>(b, [&](void* t, size_t& s, T* o) { return compensated_sum(t, s, d, o, n, T(0.25), b.stream); });
        const Reference r = reference(data, 0.25);
        return within(double(got), r, 4 * (std::numeric_limits<T>::epsilon() / 2) * double(r.abs_sum) + 1e-300);
      }
      break;
    }
    case FuzzOp::product: {
      if constexpr (std::is_same_v<T, double>) {
        long double e = 1;
        for (T x : data) e *= x;
        const double got = run_call<double>(b, [&](void* t, size_t& s, double* o) { return reduce(t, s, d, o, n, multiplies{}, 1.0, b.stream); });
        Reference r;
        r.sum = e;
        // Every one of the n multiplications rounds once, in whatever order: |error| ≤ n·u·|p|.
        return within(got, r, double(n + 1) * (std::numeric_limits<double>::epsilon() / 2) * std::fabs(double(e)));
      }
      break;
    }
    case FuzzOp::sum_of_squares: {
      if constexpr (std::is_same_v<T, float>) {
        long double e = 0, a = 0;
        for (T x : data) e += (long double)x * x;
        a = e;
        const double got = run_call<double>(b, [&](void* t, size_t& s, double* o) { return transform_reduce(t, s, d, o, n, plus{}, square{}, 0.0, b.stream); });
        Reference r;
        r.sum = e;
        // warpfold::square computes in double: each square is exact, only the sum rounds.
        return within(got, r, sum_bound(n, std::numeric_limits<double>::epsilon() / 2, a));
      }
      break;
    }
    case FuzzOp::min: case FuzzOp::max: case FuzzOp::argmin: case FuzzOp::argmax: {
      const bool lower = c.op == FuzzOp::min || c.op == FuzzOp::argmin;
      // The reference ordering of ops.cuh: NaN is the most extreme value, the first index wins ties.
      auto before = [&](double a, double b2) {
        if (std::isnan(a)) return !std::isnan(b2);
        if (std::isnan(b2)) return false;
        return lower ? a < b2 : a > b2;
      };
      auto before_t = [&](const T& x, const T& y) { return before(to_double(x), to_double(y)); };
      if (c.op == FuzzOp::argmin || c.op == FuzzOp::argmax) return check_arg_index(b, d, data, lower, before_t);
      const uint64_t ei = first_extreme_index(data, before_t);
      const T init = from_double<T>(lower ? 1e4 : -1e4);
      const T got = lower ? run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, minimum{}, init, b.stream); })
                          : run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, maximum{}, init, b.stream); });
      // init takes part like any element (it wins against +inf in a min).
      const double extreme = n ? to_double(data[ei]) : to_double(init);
      const double expected = before(to_double(init), extreme) ? to_double(init) : extreme;
      const double g = to_double(got);
      if ((std::isnan(expected) && std::isnan(g)) || expected == g) return {true, ""};
      return {false, "expected " + std::to_string(expected) + " got " + std::to_string(g)};
    }
    default: break;
  }
  return {false, "unsupported case"};
}

}  // namespace

FuzzOutcome run_floating_case(const FuzzCase& c, FuzzBuffers& b) {
  switch (c.type) {
    case FuzzType::f32: return run_typed<float>(c, b);
    case FuzzType::f64: return run_typed<double>(c, b);
    case FuzzType::f16: return run_typed<__half>(c, b);
    case FuzzType::bf16: return run_typed<__nv_bfloat16>(c, b);
    default: return {false, "not a floating-point type"};
  }
}

}  // namespace warpfold::fuzz
