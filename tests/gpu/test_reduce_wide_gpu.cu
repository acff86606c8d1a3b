// The wide kernel (8 vectors in flight per thread, 32 KiB tiles), which the dispatch takes above
// detail::kHopperPolicy.wide_above_bytes and from 16 to 64 KiB (takes_wide_tiles): here it is named explicitly,
// so that it meets every awkward size, pointer offset and combine path (one block, a warp's
// combine, a block's combine, several partials per combiner thread) that the narrow kernel meets.
#include "gpu/reduce_test_support.cuh"

#include <algorithm>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// The wide kernel, named; with Public, the public entry point instead, which names no kernel (at
// these sizes it takes the wide one above 4 MiB and from 16 to 64 KiB).
template <bool Public = false, class T, class Acc, class Op>
cudaError_t reduce_wide(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, Op op, Acc init) {
  if constexpr (Public) return reduce(temp, bytes, in, out, n, op, init);
  else
    return detail::dispatch_reduce<detail::kernel_pick::wide>(
        temp, bytes, in, out, n, init, op, detail::convert<identity>{}, cudaStream_t{});
}

// The narrow kernel, named: the other side of the dispatch's choice.
template <class T, class Acc, class Op>
cudaError_t reduce_narrow(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, Op op, Acc init) {
  return detail::dispatch_reduce<detail::kernel_pick::narrow>(temp, bytes, in, out, n, init, op,
                                                                           detail::convert<identity>{}, cudaStream_t{});
}

// The sizes of the narrow kernel's tests, and a few more around the wide kernel's tiles (8192
// 4-byte elements) and its one-block limit (two tiles).
std::vector<uint64_t> wide_sizes() {
  std::vector<uint64_t> sizes = reduce_sizes();
  for (uint64_t n : {8192ull * 2 - 1, 8192ull * 2 + 1, 8192ull * 3 + 5, (1ull << 22) + 3})
    if (n <= max_test_n()) sizes.push_back(n);
  return sizes;
}

template <class T, class Acc, bool Public = false, class Op, class Ref, class Make>
void check_exact(Op op, Acc init, Ref ref_op, Make make_data) {
  WARPFOLD_REQUIRE_GPU();
  check_exact_reduce<T>(wide_sizes(), init, ref_op, make_data, [&](void* t, size_t& b, const T* in, Acc* o, uint64_t n) {
    return reduce_wide<Public>(t, b, in, o, n, op, init);
  });
}

// Sums within the bound of the narrow kernel's tests (sum_bound), bitwise the same on a rerun.
template <bool Public, class T>
void check_float_sum() {
  WARPFOLD_REQUIRE_GPU();
  check_sum_within_bound<T, T>(
      wide_sizes(),
      [](uint64_t n, long double abs_sum) { return sum_bound(n, std::numeric_limits<T>::epsilon() / 2, abs_sum); },
      [](void* t, size_t& b, const T* in, T* o, uint64_t n) { return reduce_wide<Public>(t, b, in, o, n, plus{}, T(0.5)); });
}

TEST(ReduceWide, Int32SumWrapsAtFullWidth) {
  check_exact<int32_t, int32_t>(plus{}, int32_t(3), [](int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); },
                                uniform_data<int32_t>(-2147483648.0, 2147483647.0));
}
TEST(ReduceWide, Int32SumIntoInt64) {
  check_exact<int32_t, int64_t>(plus{}, int64_t(7), [](int64_t a, int64_t b) { return a + b; }, uniform_data<int32_t>(-1e9, 1e9));
}
TEST(ReduceWide, Int32Max) {
  check_exact<int32_t, int32_t>(maximum{}, std::numeric_limits<int32_t>::min(),
                                [](int32_t a, int32_t b) { return std::max(a, b); }, data_with_unique_extreme<int32_t>(false));
}
TEST(ReduceWide, Uint32Xor) {
  check_exact<uint32_t, uint32_t>(bit_xor{}, 0u, [](uint32_t a, uint32_t b) { return a ^ b; }, uniform_data<uint32_t>(0, 4294967295.0));
}
TEST(ReduceWide, Int64Min) {
  check_exact<int64_t, int64_t>(minimum{}, std::numeric_limits<int64_t>::max(),
                                [](int64_t a, int64_t b) { return std::min(a, b); }, data_with_unique_extreme<int64_t>(true));
}
TEST(ReduceWide, FloatAndDoubleMax) {
  check_exact<float, float>(maximum{}, std::numeric_limits<float>::lowest(),
                            [](float a, float b) { return std::max(a, b); }, uniform_data<float>(-1e30, 1e30));
  check_exact<double, double>(maximum{}, std::numeric_limits<double>::lowest(),
                              [](double a, double b) { return std::max(a, b); }, uniform_data<double>(-1e300, 1e300));
}
TEST(ReduceWide, FloatSum) { check_float_sum<false, float>(); }
TEST(ReduceWide, DoubleSum) { check_float_sum<false, double>(); }
TEST(ReduceWide, PublicFloatAndDoubleSums) {
  check_float_sum<true, float>();
  check_float_sum<true, double>();
}
// Exact totals (exact_sum_data): a dropped or repeated element shows whatever the fold order.
TEST(ReduceWide, ExactFloatAndDoubleSums) {
  check_exact<float, float, false>(plus{}, 0.5f, [](float a, float b) { return a + b; }, exact_sum_data<float>());
  check_exact<float, float, true>(plus{}, 0.5f, [](float a, float b) { return a + b; }, exact_sum_data<float>());
  check_exact<double, double, false>(plus{}, 0.5, [](double a, double b) { return a + b; }, exact_sum_data<double>());
  check_exact<double, double, true>(plus{}, 0.5, [](double a, double b) { return a + b; }, exact_sum_data<double>());
}

// The dispatch's own choice, seen in the fold order: just above kHopperPolicy.wide_above_bytes the wide kernel,
// just below it the narrow one, and the wide kernel again from one narrow tile to one block of
// wide tiles (16-64 KiB). A float sum through the public entry point must be bitwise the named
// kernel's that takes_wide_tiles picks. Up to one narrow tile of vectors (the lower edge: 4096
// floats, and a few more in the scalar head and tail) both kernels run one block whose threads
// fold the same vectors in the same order, so their sums must be bitwise equal there: the choice
// at that edge is one of speed alone. Past it the two kernels' tiles and grids differ, so their
// roundings do, and at least one such size must tell them apart, or the comparison proved
// nothing. Exact maxima through the public entry point on either side of each edge as well.
TEST(ReduceWide, DispatchSwitchesKernelsAtTheThresholds) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t edge = detail::kHopperPolicy.wide_above_bytes / sizeof(float);
  static_assert(!detail::takes_wide_tiles<float, float>(detail::kHopperPolicy.wide_above_bytes / sizeof(float)));
  static_assert(detail::takes_wide_tiles<float, float>(detail::kHopperPolicy.wide_above_bytes / sizeof(float) + 1));
  const uint64_t small_low = detail::narrow_tile_bytes(detail::kHopperPolicy) / sizeof(float);
  const uint64_t small_high = detail::wide_single_block_bytes(detail::kHopperPolicy) / sizeof(float);
  static_assert(!detail::takes_wide_tiles<float, float>(detail::narrow_tile_bytes(detail::kHopperPolicy) / sizeof(float)));
  static_assert(detail::takes_wide_tiles<float, float>(detail::narrow_tile_bytes(detail::kHopperPolicy) / sizeof(float) + 1));
  static_assert(detail::takes_wide_tiles<float, float>(detail::wide_single_block_bytes(detail::kHopperPolicy) / sizeof(float)));
  static_assert(!detail::takes_wide_tiles<float, float>(detail::wide_single_block_bytes(detail::kHopperPolicy) / sizeof(float) + 1));
  int told_apart = 0;
  constexpr size_t kOffset = 2;  // floats: a scalar head of 2 (8 bytes to the next 16-byte boundary)
  constexpr uint64_t kNarrowTileVectors = detail::narrow_tile_bytes(detail::kHopperPolicy) / 16;
  for (uint64_t n : {small_low - 1, small_low, small_low + 1, small_low + 5, small_low + 1029, small_high - 1,
                     small_high, small_high + 1, small_high + 7, edge - 3, edge, edge + 1, edge + 4099}) {
    WARPFOLD_REQUIRE_TEST_SIZE(n);
    const uint64_t seed = new_seed();
    const auto data = order_sensitive_values<float>(n, seed);
    offset_buffer<float> buf(data, kOffset);
    const auto run = [&](auto call) {
      return run_two_phase<float>([&](void* t, size_t& b, float* o) { return call(t, b, buf.get(), o, n); });
    };
    const float by_dispatch = run([](auto&&... a) { return reduce(a..., plus{}, 0.0f); });
    const float narrow = run([](auto&&... a) { return reduce_narrow(a..., plus{}, 0.0f); });
    const float wide = run([](auto&&... a) { return reduce_wide(a..., plus{}, 0.0f); });
    const bool takes_wide = detail::takes_wide_tiles<float, float>(n);
    EXPECT_TRUE(bitwise_equal(by_dispatch, takes_wide ? wide : narrow))
        << where(n, kOffset, seed) << ": dispatch " << by_dispatch << ", narrow " << narrow << ", wide " << wide
        << (takes_wide ? " (expected the wide kernel's)" : " (expected the narrow kernel's)");
    const bool one_narrow_tile = (n - kOffset) / 4 <= kNarrowTileVectors;
    if (one_narrow_tile) {
      EXPECT_TRUE(bitwise_equal(narrow, wide))
          << where(n, kOffset, seed) << ": one narrow tile, yet narrow " << narrow << ", wide " << wide;
    } else if (!bitwise_equal(narrow, wide)) {
      ++told_apart;
    }
    const float expected = *std::max_element(data.begin(), data.end());
    EXPECT_EQ(reduce_value(buf.get(), n, maximum{}, std::numeric_limits<float>::lowest()), expected)
        << where(n, kOffset, seed);
  }
  EXPECT_GT(told_apart, 0) << "the narrow and wide kernels gave bitwise the same sums at every size past one "
                              "narrow tile";
}

}  // namespace
