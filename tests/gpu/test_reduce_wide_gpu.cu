// The wide kernel (8 vectors in flight per thread, 32 KiB tiles), which the dispatch takes above
// detail::kHopperPolicy.wide_above_bytes and from 16 to 64 KiB (takes_wide_tiles): what only it
// does. The checks it shares with the bulk kernel are test_reduce_named_kernels_gpu.cu's.
#include "gpu/named_kernels.cuh"

#include <algorithm>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// The public entry point at the wide kernel's sizes (it names no kernel: at these sizes it takes
// the wide one above 4 MiB and from 16 to 64 KiB): sums within the bound, bitwise the same on a
// rerun, and exact totals.
template <class T>
void check_public_float_sum() {
  WARPFOLD_REQUIRE_GPU();
  check_sum_within_bound<T, T>(
      wide_kernel::sizes(),
      [](uint64_t n, long double abs_sum) { return sum_bound(n, std::numeric_limits<T>::epsilon() / 2, abs_sum); },
      [](void* t, size_t& b, const T* in, T* o, uint64_t n) { return reduce(t, b, in, o, n, plus{}, T(0.5)); });
}
template <class T>
void check_public_exact_sum() {
  WARPFOLD_REQUIRE_GPU();
  check_exact_reduce<T>(wide_kernel::sizes(), T(0.5), [](T a, T b) { return a + b; }, exact_sum_data<T>(),
                        [](void* t, size_t& b, const T* in, T* o, uint64_t n) { return reduce(t, b, in, o, n, plus{}, T(0.5)); });
}

TEST(ReduceWide, PublicFloatAndDoubleSums) {
  check_public_float_sum<float>();
  check_public_float_sum<double>();
}
// Exact totals (exact_sum_data): a dropped or repeated element shows whatever the fold order.
TEST(ReduceWide, PublicExactFloatAndDoubleSums) {
  check_public_exact_sum<float>();
  check_public_exact_sum<double>();
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
    const float narrow = run([](auto&&... a) { return reduce_through<detail::kernel_pick::narrow>(a..., plus{}, 0.0f); });
    const float wide = run([](auto&&... a) { return reduce_through<detail::kernel_pick::wide>(a..., plus{}, 0.0f); });
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
