// warpfold::reduce on integer types: every result exact (integer arithmetic wraps identically on
// both sides, computed in unsigned arithmetic on the CPU).
#include "gpu/reduce_test_support.cuh"

#include "harness/run_context.hpp"
#include "harness/splitmix64.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// A user-supplied associative, commutative operator: addition modulo a prime.
struct plus_mod_prime {
  static constexpr uint64_t p = 1000000007ull;
  __host__ __device__ uint64_t operator()(uint64_t a, uint64_t b) const { return (a + b) % p; }
};

// A transform of the caller's, fused into the load: the square, computed in 64 bits. It receives
// the input element, not the accumulator (as in CUB).
struct widen_square {
  template <class X>
  __device__ int64_t operator()(X x) const {
    static_assert(std::is_same_v<X, int32_t>, "a transform of the caller's receives the input element");
    return int64_t(x) * x;
  }
};

template <class T, class Acc, class Op, class Ref, class Make>
void check_reduce(Op op, Acc init, Ref ref_op, Make make_data) {
  WARPFOLD_REQUIRE_GPU();
  check_exact_reduce<T>(reduce_sizes(), init, ref_op, make_data,
                        [&](void* t, size_t& b, const T* in, Acc* o, uint64_t n) { return reduce(t, b, in, o, n, op, init); });
}

// Every operator on integers of type T. Each data set makes every element count: small values
// for sums, one planted extreme for min and max, odd factors for the product, a few flipped bits
// for and/or, full-width values for xor.
template <class T>
void check_integer_type() {
  using lim = std::numeric_limits<T>;
  using U = std::make_unsigned_t<T>;
  const long double lo = std::is_signed_v<T> ? -100 : 0;
  const long double hi = std::is_signed_v<T> ? 100 : 200;
  const auto full_range = uniform_data<T>((long double)lim::min(), (long double)lim::max());
  // Sum into a 64-bit accumulator: exact.
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  check_reduce<T, Wide>(plus{}, Wide(7), [](Wide a, Wide b) { return Wide(uint64_t(a) + uint64_t(b)); },
                        uniform_data<T>(lo, hi));
  // Sum in the element's own type: wraps, as the hardware does.
  check_reduce<T, T>(plus{}, T(3), [](T a, T b) { return T(U(U(a) + U(b))); }, uniform_data<T>(lo, hi));
  check_reduce<T, T>(plus{}, T(0), [](T a, T b) { return T(U(U(a) + U(b))); }, full_range);
  check_reduce<T, T>(minimum{}, lim::max(), [](T a, T b) { return std::min(a, b); }, data_with_unique_extreme<T>(true));
  check_reduce<T, T>(maximum{}, lim::min(), [](T a, T b) { return std::max(a, b); }, data_with_unique_extreme<T>(false));
  // The product in T, computed in unsigned arithmetic (wraps like the hardware, no overflow).
  check_reduce<T, T>(multiplies{}, T(1), [](T a, T b) { return T(U(uint64_t(U(a)) * uint64_t(U(b)))); }, odd_data<T>());
  check_reduce<T, T>(bit_and{}, T(~T(0)), [](T a, T b) { return T(a & b); }, sparse_bit_data<T>(false));
  check_reduce<T, T>(bit_or{}, T(0), [](T a, T b) { return T(a | b); }, sparse_bit_data<T>(true));
  check_reduce<T, T>(bit_xor{}, T(0), [](T a, T b) { return T(a ^ b); }, full_range);
  if constexpr (sizeof(T) <= 2) {
    // A 1- or 2-byte vector's total is extended to a wider accumulator: the minimum's negative
    // extreme and xor's sign bits must survive the extension.
    using Word = std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>;
    check_reduce<T, Word>(maximum{}, Word(lim::min()), [](Word a, Word b) { return std::max(a, b); },
                          data_with_unique_extreme<T>(false));
    check_reduce<T, Word>(minimum{}, Word(lim::max()), [](Word a, Word b) { return std::min(a, b); },
                          data_with_unique_extreme<T>(true));
    check_reduce<T, Word>(bit_xor{}, Word(0), [](Word a, Word b) { return Word(a ^ b); }, full_range);
  }
}

TEST(ReduceInt, Int8) { check_integer_type<int8_t>(); }
TEST(ReduceInt, Int16) { check_integer_type<int16_t>(); }
TEST(ReduceInt, Int32) { check_integer_type<int32_t>(); }
TEST(ReduceInt, Int64) { check_integer_type<int64_t>(); }
TEST(ReduceInt, Uint8) { check_integer_type<uint8_t>(); }
TEST(ReduceInt, Uint16) { check_integer_type<uint16_t>(); }
TEST(ReduceInt, Uint32) { check_integer_type<uint32_t>(); }
TEST(ReduceInt, Uint64) { check_integer_type<uint64_t>(); }

// A user-supplied operator, on 32- and 64-bit data, all accumulated in 64 bits.
TEST(ReduceInt, UserFunctor) {
  check_reduce<uint64_t, uint64_t>(plus_mod_prime{}, 0ull, plus_mod_prime{}, uniform_data<uint64_t>(0, 1e18));
  check_reduce<uint32_t, uint64_t>(plus_mod_prime{}, 5ull, plus_mod_prime{}, uniform_data<uint32_t>(0, 4294967295.0));
  check_reduce<int32_t, uint64_t>(plus_mod_prime{}, 0ull, plus_mod_prime{}, uniform_data<int32_t>(0, 2147483647.0));
}

// Int32 data whose squares pass 2^31, summed into int64 (up to 2^21 + 5 squares below 4e12 each
// stay below 2^63): warpfold::square computes in the accumulator type, as the caller's
// widen_square does in its own code; a square computed in int32 would wrap.
TEST(ReduceInt, SumOfSquaresFusedIntoTheLoad) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    const auto data = random_values<int32_t>(n, seed, -2000000, 2000000);
    int64_t expected = 0;
    for (int32_t x : data) expected += int64_t(x) * x;
    offset_buffer<int32_t> buf(data, n % 4);
    const auto sum_of_squares = [&](auto transform) {
      return run_two_phase<int64_t>([&](void* t, size_t& b, int64_t* o) {
        return transform_reduce(t, b, buf.get(), o, n, plus{}, transform, int64_t(0));
      });
    };
    ASSERT_EQ(sum_of_squares(square{}), expected) << where(n, n % 4, seed) << " (warpfold::square)";
    ASSERT_EQ(sum_of_squares(widen_square{}), expected) << where(n, n % 4, seed) << " (the caller's transform)";
  }
}

// warpfold::absolute computes in the accumulator type too: |INT32_MIN| (every third element here)
// is 2^31, which int32 cannot hold; 2^21 + 5 magnitudes up to 2^31 fit int64.
TEST(ReduceInt, SumOfMagnitudesReachesInt32Min) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    auto data = random_values<int32_t>(n, seed, -2147483647.0, 2147483647.0);
    for (uint64_t i = 0; i < n; i += 3) data[i] = std::numeric_limits<int32_t>::min();
    int64_t expected = 0;
    for (int32_t x : data) expected += x < 0 ? -int64_t(x) : int64_t(x);
    offset_buffer<int32_t> buf(data, n % 4);
    const int64_t got = run_two_phase<int64_t>([&](void* t, size_t& b, int64_t* o) {
      return transform_reduce(t, b, buf.get(), o, n, plus{}, absolute{}, int64_t(0));
    });
    ASSERT_EQ(got, expected) << where(n, n % 4, seed);
  }
}

// The largest accumulator allowed (warpfold::kMaxAccumulatorBytes): a 16-bin histogram of
// 32-bit counts, through a transform of the caller's (each element to its bin) and an operator
// that adds bin by bin. Exact at every size and offset.
struct histogram16 {
  uint32_t count[16];
};
static_assert(sizeof(histogram16) == kMaxAccumulatorBytes);
struct to_bin {
  __host__ __device__ histogram16 operator()(int32_t x) const {
    histogram16 h{};
    h.count[uint32_t(x) % 16] = 1;
    return h;
  }
};
struct add_bins {
  __host__ __device__ histogram16 operator()(const histogram16& a, const histogram16& b) const {
    histogram16 sum;
    for (int i = 0; i < 16; ++i) sum.count[i] = a.count[i] + b.count[i];
    return sum;
  }
};

TEST(ReduceInt, LargestAccumulatorHistogram) {
  WARPFOLD_REQUIRE_GPU();
  histogram16 init{};
  init.count[3] = 1000;  // n = 0 gives it back
  for (uint64_t n : reduce_sizes()) {
    const uint64_t seed = new_seed();
    const auto data = random_values<int32_t>(n, seed, -2147483648.0, 2147483647.0);
    histogram16 expected = init;
    for (int32_t x : data) expected = add_bins{}(expected, to_bin{}(x));
    for (size_t off : element_offsets<int32_t>()) {
      offset_buffer<int32_t> buf(data, off);
      const auto got = run_two_phase<histogram16>([&](void* t, size_t& b, histogram16* o) {
        return transform_reduce(t, b, buf.get(), o, n, add_bins{}, to_bin{}, init);
      });
      for (int i = 0; i < 16; ++i) ASSERT_EQ(got.count[i], expected.count[i]) << "bin " << i << ", " << where(n, off, seed);
    }
  }
}

template <class T, class Op, class Better>
void check_arg(Op, Better better) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : reduce_sizes()) {
    if (n == 0) continue;
    const uint64_t seed = new_seed();
    // Many ties: the first index must win.
    const auto data = std::is_signed_v<T> ? random_values<T>(n, seed, -50, 50) : random_values<T>(n, seed, 0, 100);
    key_value<T> expected{data[0], 0};
    for (uint64_t i = 1; i < n; ++i) {
      if (better(data[i], expected.value)) expected = {data[i], i};
    }
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      const auto got = run_two_phase<key_value<T>>([&](void* t, size_t& b, key_value<T>* o) {
        if constexpr (std::is_same_v<Op, arg_min>) return argmin(t, b, buf.get(), o, n);
        else return argmax(t, b, buf.get(), o, n);
      });
      ASSERT_EQ(got.value, expected.value) << where(n, off, seed);
      ASSERT_EQ(got.index, expected.index) << where(n, off, seed);
    }
  }
}

template <class T>
void check_arg_both() {
  check_arg<T>(arg_min{}, [](T a, T b) { return a < b; });
  check_arg<T>(arg_max{}, [](T a, T b) { return a > b; });
}

TEST(ReduceInt, ArgMinArgMaxFirstIndexWins) {
  check_arg_both<int8_t>();
  check_arg_both<int16_t>();
  check_arg_both<int32_t>();
  check_arg_both<int64_t>();
  check_arg_both<uint32_t>();
  check_arg_both<uint64_t>();
}

TEST(ReduceInt, EmptyInputReturnsInitAndArgIndexZero) {
  WARPFOLD_REQUIRE_GPU();
  const std::vector<int32_t> none;
  offset_buffer<int32_t> buf(none, 0);
  EXPECT_EQ(reduce_value(buf.get(), 0, plus{}, int64_t(42)), 42);
  const auto arg = run_two_phase<key_value<int32_t>>([&](void* t, size_t& b, key_value<int32_t>* o) {
    return argmin(t, b, buf.get(), o, 0);
  });
  EXPECT_EQ(arg.index, 0u);
  EXPECT_EQ(arg.value, 0);  // documented: {T{}, 0}
}

// The pointer checks come before any device call, so they run (and hold) without a GPU too: every
// entry point reports a null or misaligned pointer as such. The addresses are made up; an
// argument error returns before anything could dereference them.
template <class P>
P* address(uintptr_t a) {
  return reinterpret_cast<P*>(a);
}

TEST(ReduceArguments, PointerErrorsAreReportedBeforeAnyDeviceCall) {
  size_t bytes = size_t(1) << 20;
  void* temp = address<void>(0x10000);
  const auto* in = address<const int32_t>(0x20000);
  auto* out = address<int64_t>(0x30000);
  const auto* fin = address<const float>(0x20000);
  auto* fout = address<float>(0x30000);
  auto* kv_out = address<key_value<float>>(0x30000);
  const auto bad_null = cudaErrorInvalidValue, bad_align = cudaErrorMisalignedAddress;

  EXPECT_EQ(reduce(temp, bytes, in, static_cast<int64_t*>(nullptr), 10, plus{}, int64_t(0)), bad_null);
  EXPECT_EQ(reduce(temp, bytes, static_cast<const int32_t*>(nullptr), out, 10, plus{}, int64_t(0)), bad_null);
  EXPECT_EQ(reduce(temp, bytes, address<const int32_t>(0x20002), out, 10, plus{}, int64_t(0)), bad_align);
  EXPECT_EQ(reduce(temp, bytes, in, address<int64_t>(0x30004), 10, plus{}, int64_t(0)), bad_align);
  EXPECT_EQ(reduce(address<void>(0x10004), bytes, in, out, 10, plus{}, int64_t(0)), bad_align);

  EXPECT_EQ(transform_reduce(temp, bytes, in, static_cast<int64_t*>(nullptr), 10, plus{}, widen_square{}, int64_t(0)),
            bad_null);
  EXPECT_EQ(transform_reduce(temp, bytes, address<const int32_t>(0x20001), out, 10, plus{}, square{}, int64_t(0)),
            bad_align);
  EXPECT_EQ(argmin(temp, bytes, fin, static_cast<key_value<float>*>(nullptr), 10), bad_null);
  EXPECT_EQ(argmax(temp, bytes, static_cast<const float*>(nullptr), kv_out, 10), bad_null);
  EXPECT_EQ(argmax(temp, bytes, fin, address<key_value<float>>(0x30004), 10), bad_align);
  EXPECT_EQ(compensated_sum(temp, bytes, fin, static_cast<float*>(nullptr), 10, 0.0f), bad_null);
  EXPECT_EQ(compensated_sum(temp, bytes, address<const float>(0x20002), fout, 10, 0.0f), bad_align);
}

// Temp storage depends on the types, the operator and the device, never on n (reduce.cuh): one
// query serves every size, from none to more than any device holds.
TEST(ReduceArguments, TempBytesDoNotDependOnN) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t sizes[] = {0, 1, 4097, (uint64_t(1) << 20) + 7, uint64_t(1) << 28, uint64_t(1) << 40};
  const auto same_for_every_n = [&](const char* what, auto query) {
    size_t first = 0;
    ASSERT_EQ(query(sizes[0], first), cudaSuccess) << what;
    EXPECT_GT(first, 0u) << what;
    for (uint64_t n : sizes) {
      size_t bytes = 0;
      ASSERT_EQ(query(n, bytes), cudaSuccess) << what << ", n = " << n;
      EXPECT_EQ(bytes, first) << what << ", n = " << n;
    }
  };
  const auto* in32 = static_cast<const int32_t*>(nullptr);
  const auto* in_float = static_cast<const float*>(nullptr);
  same_for_every_n("reduce int32 into int64", [&](uint64_t n, size_t& b) {
    return reduce(nullptr, b, in32, static_cast<int64_t*>(nullptr), n, plus{}, int64_t(0));
  });
  same_for_every_n("transform_reduce float into double", [&](uint64_t n, size_t& b) {
    return transform_reduce(nullptr, b, in_float, static_cast<double*>(nullptr), n, plus{}, square{}, 0.0);
  });
  same_for_every_n("argmax float", [&](uint64_t n, size_t& b) {
    return argmax(nullptr, b, in_float, static_cast<key_value<float>*>(nullptr), n);
  });
  same_for_every_n("compensated_sum float into double", [&](uint64_t n, size_t& b) {
    return compensated_sum(nullptr, b, in_float, static_cast<double*>(nullptr), n, 0.0);
  });
}

TEST(ReduceInt, BadArgumentsAreErrorsNotCrashes) {
  WARPFOLD_REQUIRE_GPU();
  size_t bytes = 0;
  int64_t* out = nullptr;
  ASSERT_EQ(reduce(nullptr, bytes, static_cast<const int32_t*>(nullptr), out, 10, plus{}, int64_t(0)), cudaSuccess);
  void* temp = nullptr;
  ASSERT_EQ(cudaMalloc(&temp, bytes + 64), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 64), cudaSuccess);
  const int32_t* misaligned = reinterpret_cast<const int32_t*>(static_cast<char*>(temp) + 1);
  EXPECT_EQ(reduce(temp, bytes, misaligned, out, 10, plus{}, int64_t(0)), cudaErrorMisalignedAddress);
  EXPECT_EQ(reduce(temp, bytes, static_cast<const int32_t*>(nullptr), out, 10, plus{}, int64_t(0)),
            cudaErrorInvalidValue);
  size_t too_small = bytes - 1;
  EXPECT_EQ(reduce(temp, too_small, static_cast<const int32_t*>(temp), out, 10, plus{}, int64_t(0)),
            cudaErrorInvalidValue);
  EXPECT_THROW(reduce_value(static_cast<const int32_t*>(nullptr), 10, plus{}, int64_t(0)), cuda_error);
  // n = 0 reads nothing, so a null input is no error there: the result is init.
  ASSERT_EQ(cudaMemset(out, 0x7f, sizeof(int64_t)), cudaSuccess);
  EXPECT_EQ(reduce(temp, bytes, static_cast<const int32_t*>(nullptr), out, 0, plus{}, int64_t(-42)), cudaSuccess);
  int64_t got = 0;
  ASSERT_EQ(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, -42);
  cudaFree(temp);
  cudaFree(out);
}

// Sums into a 32-bit integer at full width, past one resident wave of blocks (the largest grids,
// each combiner thread folding several partials): every block's partial a full 32-bit word
// that wraps. int8 data summed into int32 takes the same path through the conversion on load.
TEST(ReduceInt, Int32SumsAtFullWidthOnTheLargestGrids) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : {uint64_t(1056) * 4096 - 1, uint64_t(1056) * 4096 + 5, (uint64_t(1) << 26) + 5}) {
    WARPFOLD_REQUIRE_TEST_SIZE(n);
    const uint64_t seed = new_seed();
    const auto signed_data = random_values<int32_t>(n, seed, -2147483648.0, 2147483647.0);
    uint32_t expected = 11;
    for (int32_t x : signed_data) expected += uint32_t(x);
    offset_buffer<int32_t> sbuf(signed_data, 1);
    EXPECT_EQ(reduce_value(sbuf.get(), n, plus{}, int32_t(11)), int32_t(expected)) << where(n, 1, seed);

    const auto unsigned_data = random_values<uint32_t>(n, seed + 1, 3e9, 4294967295.0);
    uint32_t expected_u = 0;
    for (uint32_t x : unsigned_data) expected_u += x;
    offset_buffer<uint32_t> ubuf(unsigned_data, 0);
    EXPECT_EQ(reduce_value(ubuf.get(), n, plus{}, 0u), expected_u) << where(n, 0, seed + 1);

    const auto bytes = random_values<int8_t>(n, seed + 2, -128, 127);
    int32_t expected_b = 0;
    for (int8_t x : bytes) expected_b += x;
    offset_buffer<int8_t> bbuf(bytes, 7);
    EXPECT_EQ(reduce_value(bbuf.get(), n, plus{}, int32_t(0)), expected_b) << where(n, 7, seed + 2);
  }
}

// Random bytes, 8 from each step of splitmix64: billions of elements in about a second, where a
// distribution object per element would take a minute.
void fill_random_bytes(void* out, size_t bytes, uint64_t seed) {
  auto* p = static_cast<unsigned char*>(out);
  harness::splitmix64 draw{seed};
  for (size_t i = 0; i < bytes; i += 8) {
    const uint64_t z = draw();
    std::memcpy(p + i, &z, std::min<size_t>(8, bytes - i));
  }
}

// Why the current device cannot hold `bytes` more beside some room for temp storage and the
// runtime (the lessons' own check and message), or empty where it can.
std::string device_memory_shortfall(size_t bytes) {
  int device = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  try {
    harness::require_free_device_memory(device, bytes + (size_t(256) << 20), "this test");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// Beyond 2^32 elements (4 GiB of int8): 64-bit counts and indices all the way, where a count or
// an index cut to 32 bits shows. One device buffer at a time.
TEST(ReduceInt, BeyondTwoToThe32Elements) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = (1ull << 32) + (1ull << 20) + 17;
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  if (const auto why = device_memory_shortfall(n + offset_buffer<int8_t>::kSlackBytes + 16); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const uint64_t seed = new_seed();
  std::vector<int8_t> data(n);
  fill_random_bytes(data.data(), n, seed);
  int64_t expected = 0;
  for (int8_t x : data) expected += x;
  {
    offset_buffer<int8_t> buf(data, 3);
    EXPECT_EQ(reduce_value(buf.get(), n, plus{}, int64_t(0)), expected) << "seed " << seed;
  }
  // Every element at most 0, and two equal maxima past 2^32: argmax names the first, whose index
  // cut to 32 bits would be below 2^19.
  for (auto& x : data) x = int8_t(-(x & 0x7f));
  const uint64_t first = (1ull << 32) + 1 + seed % (1ull << 19);
  data[first] = 1;
  data[n - 1] = 1;
  offset_buffer<int8_t> buf(data, 0);
  const auto arg = run_two_phase<key_value<int8_t>>([&](void* t, size_t& b, key_value<int8_t>* o) {
    return argmax(t, b, buf.get(), o, n);
  });
  EXPECT_EQ(arg.index, first) << "seed " << seed;
  EXPECT_EQ(arg.value, 1);
}

// Past 4 GiB of 4-byte elements (the bulk kernel's tiles at byte offsets above 2^32), from a
// pointer one element past a 16-byte boundary: a byte offset cut to 32 bits would reread the
// first 4 GiB and change the sum.
TEST(ReduceInt, BeyondFourGibibytesOfInt32) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = (1ull << 30) + (1ull << 18) + 3;
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  if (const auto why = device_memory_shortfall(n * sizeof(int32_t) + offset_buffer<int32_t>::kSlackBytes + 16);
      !why.empty()) {
    GTEST_SKIP() << why;
  }
  const uint64_t seed = new_seed();
  std::vector<int32_t> data(n);
  fill_random_bytes(data.data(), n * sizeof(int32_t), seed);
  int64_t expected = -5;
  for (int32_t x : data) expected += x;
  offset_buffer<int32_t> buf(data, 1);
  EXPECT_EQ(reduce_value(buf.get(), n, plus{}, int64_t(-5)), expected) << "seed " << seed;
}

// --- the launch (detail/kernel_launch.cuh): driver fast path and runtime fallback ---------------

// Copies fresh data to the device on `stream` and reduces it on the same stream without waiting
// in between: the reduce must run after the copy, on that stream (the buffer held other values
// before, so a launch into another stream would read them).
int64_t copy_then_reduce(cudaStream_t stream, const std::vector<int32_t>& data, int32_t* d_in, void* temp,
                         size_t bytes, int64_t* d_out) {
  int32_t* pinned = nullptr;
  EXPECT_EQ(cudaMallocHost(&pinned, data.size() * sizeof(int32_t)), cudaSuccess);
  std::memcpy(pinned, data.data(), data.size() * sizeof(int32_t));
  EXPECT_EQ(cudaMemcpyAsync(d_in, pinned, data.size() * sizeof(int32_t), cudaMemcpyHostToDevice, stream), cudaSuccess);
  EXPECT_EQ(reduce(temp, bytes, static_cast<const int32_t*>(d_in), d_out, data.size(), plus{}, int64_t(0), stream),
            cudaSuccess);
  int64_t got = 0;
  EXPECT_EQ(cudaMemcpyAsync(&got, d_out, sizeof(got), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaFreeHost(pinned);
  return got;
}

TEST(ReduceLaunch, EveryKindOfStreamRunsTheReduceInOrder) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = std::min<uint64_t>((1u << 20) + 7, max_test_n());
  int32_t* d_in = nullptr;
  int64_t* d_out = nullptr;
  size_t bytes = 0;
  ASSERT_EQ(reduce(nullptr, bytes, static_cast<const int32_t*>(nullptr), d_out, n, plus{}, int64_t(0)), cudaSuccess);
  void* temp = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, n * sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, sizeof(int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&temp, bytes), cudaSuccess);
  ASSERT_EQ(harness::prepare_fresh_temp(temp, bytes), cudaSuccess);
  cudaStream_t blocking = nullptr, non_blocking = nullptr;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
  const std::pair<const char*, cudaStream_t> streams[] = {{"null stream", nullptr},
                                                          {"cudaStreamLegacy", cudaStreamLegacy},
                                                          {"cudaStreamPerThread", cudaStreamPerThread},
                                                          {"created stream", blocking},
                                                          {"non-blocking stream", non_blocking}};
  for (int round = 0; round < 2; ++round) {  // the second round takes the cached launch handle
    for (const auto& [name, stream] : streams) {
      ASSERT_EQ(cudaMemset(d_in, 0x7f, n * sizeof(int32_t)), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const uint64_t seed = new_seed();
      const auto data = random_values<int32_t>(n, seed, -1000, 1000);
      int64_t expected = 0;
      for (int32_t x : data) expected += x;
      EXPECT_EQ(copy_then_reduce(stream, data, d_in, temp, bytes, d_out), expected) << name << ", seed " << seed;
    }
  }
  cudaStreamDestroy(blocking);
  cudaStreamDestroy(non_blocking);
  cudaFree(temp);
  cudaFree(d_out);
  cudaFree(d_in);
}

// Host threads share the per-kernel launch handles: the first to launch looks them up while the
// others go through the runtime, and every result is exact (the first calls race for the
// handles: a representative run makes fewer after them).
TEST(ReduceLaunch, HostThreadsReduceConcurrently) {
  WARPFOLD_REQUIRE_GPU();
  constexpr int kThreads = 6;
  const int kCalls = representative_run() ? 4 : 25;
  const uint64_t n = std::min<uint64_t>(100003, max_test_n());
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t seed = new_seed();
      const auto data = random_values<uint32_t>(n, seed, 0, 4000000000.0);
      uint64_t expected = 0;
      for (uint32_t x : data) expected += x;
      offset_buffer<uint32_t> buf(data, size_t(t) % 4);
      cudaStream_t stream = nullptr;
      uint64_t* out = nullptr;
      void* temp = nullptr;
      size_t bytes = 0;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
          reduce(nullptr, bytes, buf.get(), out, n, plus{}, uint64_t(0)) != cudaSuccess ||
          cudaMalloc(&temp, bytes) != cudaSuccess || cudaMalloc(&out, sizeof(uint64_t)) != cudaSuccess ||
          harness::prepare_fresh_temp(temp, bytes, stream) != cudaSuccess) {
        failures[t] = "set-up failed";
        return;
      }
      for (int c = 0; c < kCalls && failures[t].empty(); ++c) {
        uint64_t got = 0;
        if (reduce(temp, bytes, buf.get(), out, n, plus{}, uint64_t(0), stream) != cudaSuccess ||
            cudaMemcpyAsync(&got, out, sizeof(got), cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
            cudaStreamSynchronize(stream) != cudaSuccess) {
          failures[t] = "a CUDA call failed";
        } else if (got != expected) {
          failures[t] = "call " + std::to_string(c) + ": " + std::to_string(got) + " != " + std::to_string(expected) +
                        ", seed " + std::to_string(seed);
        }
      }
      cudaFree(temp);
      cudaFree(out);
      cudaStreamDestroy(stream);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
}

__global__ void add_to_each(int* values, int n, int amount) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] += amount;
}

// Both paths of detail::launch_kernel launch the kernel with its arguments: the driver's (the
// current device) and the runtime's (a device index past the handle cache). A launch the driver
// refuses (1025 threads per block) returns the same error code cudaLaunchKernel gives it, and
// leaves the next launch unaffected.
TEST(ReduceLaunch, DriverAndRuntimePathsLaunchAndReportTheRuntimesErrors) {
  WARPFOLD_REQUIRE_GPU();
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  constexpr int n = 1000;
  int* values = nullptr;
  ASSERT_EQ(cudaMalloc(&values, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(values, 0, n * sizeof(int)), cudaSuccess);
  int count = n, amount = 3;
  void* args[] = {&values, &count, &amount};
  for (int d : {device, device, detail::kMaxDevices}) {
    EXPECT_EQ(detail::launch_kernel<&add_to_each>(d, dim3(4), dim3(256), args, nullptr), cudaSuccess) << d;
  }
  // The driver's path is there (CUDA 12 and up) and was taken: the handle was found and kept.
  ASSERT_TRUE(detail::driver().complete()) << "the driver's entry points were not found";
  EXPECT_EQ(detail::launch_handles<&add_to_each>[device].state.load(), 2) << "the launch handle is not ready";
  const cudaError_t refused = detail::launch_kernel<&add_to_each>(device, dim3(1), dim3(1025), args, nullptr);
  cudaGetLastError();
  const cudaError_t runtime = cudaLaunchKernel(&add_to_each, dim3(1), dim3(1025), args, 0, nullptr);
  cudaGetLastError();
  EXPECT_NE(refused, cudaSuccess);
  EXPECT_EQ(refused, runtime) << cudaGetErrorName(refused) << " against " << cudaGetErrorName(runtime);
  EXPECT_EQ(detail::launch_kernel<&add_to_each>(device, dim3(4), dim3(256), args, nullptr), cudaSuccess);
  std::vector<int> got(n);
  ASSERT_EQ(cudaMemcpy(got.data(), values, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 4 * amount) << "element " << i;
  cudaFree(values);
}

// The device a reduce takes is the runtime's current device, on every device in turn and again
// after switching back (the second visit answered from the thread's memory of the context), and
// the context it reports is the one current on the thread.
TEST(ReduceLaunch, TheCurrentDeviceFollowsCudaSetDevice) {
  WARPFOLD_REQUIRE_GPU();
  int original = 0, count = 0;
  ASSERT_EQ(cudaGetDevice(&original), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const uint64_t n = std::min<uint64_t>(70001, max_test_n());
  for (int visit = 0; visit < 2; ++visit) {
    for (int d = 0; d < count; ++d) {
      ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
      detail::current_device current;
      ASSERT_EQ(detail::get_current_device(current), cudaSuccess);
      EXPECT_EQ(current.device, d) << "visit " << visit;
      if (detail::driver().complete()) {
        EXPECT_NE(current.context_id, 0u) << "cudaSetDevice makes the primary context current";
        EXPECT_EQ(current.context_id, detail::current_context_id(detail::driver()));
      }
      const uint64_t seed = new_seed();
      const auto data = random_values<uint32_t>(n, seed, 0, 4000000000.0);
      uint64_t expected = 0;
      for (uint32_t x : data) expected += x;
      offset_buffer<uint32_t> buf(data, size_t(d + visit) % 4);
      EXPECT_EQ(reduce_value(buf.get(), n, plus{}, uint64_t(0)), expected)
          << "device " << d << ", visit " << visit << ", seed " << seed;
    }
  }
  ASSERT_EQ(cudaSetDevice(original), cudaSuccess);
}
}  // namespace
