// Integer fuzz cases: every result is exact. References fold in unsigned arithmetic, where
// wrap-around is defined and gives the same bits as the GPU's.
#include "fuzz/fuzz_exec_common.cuh"

#include <warpfold/reduce.cuh>

#include <limits>
#include <type_traits>

namespace warpfold::fuzz {
namespace {

using detail::check_arg_index;
using detail::run_call;
using detail::upload;

// Data for bitwise and/or. Full-width random values saturate within a few dozen elements (and
// reaches 0, or all ones), after which a dropped element changes nothing. So every element is
// random in the bits of a random mask K and fixed outside it (ones for and, zeros for or), and
// up to one element per bit outside K flips that bit alone (clears it for and, sets it for or):
// the result's bits outside K name exactly the flipping elements that were folded.
template <class T>
std::vector<T> make_bitwise_data(const FuzzCase& c, splitmix64& rng) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned kBits = sizeof(T) * 8;
  const bool is_and = c.op == FuzzOp::bit_and;
  const U mask = U(rng());
  std::vector<T> v(c.n);
  for (auto& x : v) x = T(is_and ? U(U(rng()) | U(~mask)) : U(U(rng()) & mask));
  for (unsigned bit = 0; bit < kBits && c.n > 0; ++bit) {
    if (mask >> bit & 1u) continue;
    T& x = v[rng.below(c.n)];
    x = T(is_and ? U(x & U(~(U(1) << bit))) : U(x | U(U(1) << bit)));
  }
  return v;
}

template <class T>
std::vector<T> make_data(const FuzzCase& c, splitmix64& rng) {
  if (c.op == FuzzOp::bit_and || c.op == FuzzOp::bit_or) return make_bitwise_data<T>(c, rng);
  std::vector<T> v(c.n);
  // Half of the cases draw from a narrow range, so argmin/argmax meet many ties.
  const bool narrow = rng.below(2) == 0;
  // Products take odd factors: an even one in every few dozen would zero the product, and a
  // zero element would too, after which a dropped element changes nothing.
  const bool odd = c.op == FuzzOp::product;
  for (auto& x : v) {
    const uint64_t r = rng();
    x = narrow ? T(int64_t(r % 41) - (std::is_signed_v<T> ? 20 : 0)) : T(r);
    if (odd) x = T(x | T(1));
  }
  return v;
}

template <class A>
A wrap_add(A a, A b) {
  using U = std::make_unsigned_t<A>;
  return A(U(U(a) + U(b)));
}

template <class A>
A wrap_mul(A a, A b) {
  using U = std::make_unsigned_t<A>;
  return A(U(U(a) * U(b)));
}

template <class V>
FuzzOutcome compare(V expected, V got) {
  if (expected == got) return {true, ""};
  return {false, "expected " + std::to_string(expected) + " got " + std::to_string(got)};
}

template <class T>
FuzzOutcome run_typed(const FuzzCase& c, FuzzBuffers& b) {
  splitmix64 rng{c.seed ^ 0x5eed};
  const std::vector<T> data = make_data<T>(c, rng);
  const T* d = upload(data, c.offset, b);
  const uint64_t n = c.n;
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  switch (c.op) {
    case FuzzOp::sum: {
      Wide e = Wide(3);
      for (T x : data) e = wrap_add<Wide>(e, Wide(x));
      return compare(e, run_call<Wide>(b, [&](void* t, size_t& s, Wide* o) { return reduce(t, s, d, o, n, plus{}, Wide(3), b.stream); }));
    }
    case FuzzOp::sum_same_type: {
      T e = T(1);
      for (T x : data) e = wrap_add<T>(e, x);
      return compare<int64_t>(e, run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, plus{}, T(1), b.stream); }));
    }
    case FuzzOp::product: {
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= 4) {
        T e = T(1);
        for (T x : data) e = wrap_mul<T>(e, x);
        return compare(e, run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, multiplies{}, T(1), b.stream); }));
      }
      break;
    }
    case FuzzOp::min: {
      T e = std::numeric_limits<T>::max();
      for (T x : data) e = x < e ? x : e;
      return compare<int64_t>(e, run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, minimum{}, std::numeric_limits<T>::max(), b.stream); }));
    }
    case FuzzOp::max: {
      T e = std::numeric_limits<T>::lowest();
      for (T x : data) e = x > e ? x : e;
      return compare<int64_t>(e, run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, maximum{}, std::numeric_limits<T>::lowest(), b.stream); }));
    }
    case FuzzOp::bit_and: case FuzzOp::bit_or: case FuzzOp::bit_xor: {
      T e = c.op == FuzzOp::bit_and ? T(~T(0)) : T(0);
      for (T x : data) e = c.op == FuzzOp::bit_and ? T(e & x) : c.op == FuzzOp::bit_or ? T(e | x) : T(e ^ x);
      const T init = c.op == FuzzOp::bit_and ? T(~T(0)) : T(0);
      T got{};
      if (c.op == FuzzOp::bit_and) got = run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, bit_and{}, init, b.stream); });
      if (c.op == FuzzOp::bit_or) got = run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, bit_or{}, init, b.stream); });
      if (c.op == FuzzOp::bit_xor) got = run_call<T>(b, [&](void* t, size_t& s, T* o) { return reduce(t, s, d, o, n, bit_xor{}, init, b.stream); });
      return compare<uint64_t>(uint64_t(std::make_unsigned_t<T>(e)), uint64_t(std::make_unsigned_t<T>(got)));
    }
    case FuzzOp::argmin: case FuzzOp::argmax: {
      const bool is_min = c.op == FuzzOp::argmin;
      return check_arg_index(b, d, data, is_min, [&](T x, T y) { return is_min ? x < y : x > y; });
    }
    case FuzzOp::sum_of_squares: {
      if constexpr (std::is_same_v<T, int32_t>) {
        int64_t e = 0;
        for (T x : data) e = wrap_add<int64_t>(e, wrap_mul<int64_t>(x, x));
        return compare(e, run_call<int64_t>(b, [&](void* t, size_t& s, int64_t* o) {
          return transform_reduce(t, s, d, o, n, plus{}, square{}, int64_t(0), b.stream);
        }));
      }
      break;
    }
    default: break;
  }
  return {false, "unsupported case"};
}

}  // namespace

FuzzOutcome run_integer_case(const FuzzCase& c, FuzzBuffers& b) {
  switch (c.type) {
    case FuzzType::i8: return run_typed<int8_t>(c, b);
    case FuzzType::i16: return run_typed<int16_t>(c, b);
    case FuzzType::i32: return run_typed<int32_t>(c, b);
    case FuzzType::i64: return run_typed<int64_t>(c, b);
    case FuzzType::u32: return run_typed<uint32_t>(c, b);
    case FuzzType::u64: return run_typed<uint64_t>(c, b);
    default: return {false, "not an integer type"};
  }
}

}  // namespace warpfold::fuzz
