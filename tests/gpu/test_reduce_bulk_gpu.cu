// The bulk kernel (the wide kernel's 32 KiB tiles, full ones brought into shared memory by bulk
// copies, three in flight per block), which the dispatch takes above
// detail::kHopperPolicy.bulk_above_bytes on devices that run bulk copies: what only it does. The
// checks it shares with the wide kernel are test_reduce_named_kernels_gpu.cu's.
#include "gpu/named_kernels.cuh"

#include <algorithm>
#include <cstdio>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// The capacity of the float sum's bulk kernel (Bulk; 0 blocks where this device's code has no
// bulk copies, the wide kernel instead) or of its wide kernel, on the current device.
template <bool Bulk>
detail::kernel_capacity float_sum_capacity() {
  using form = detail::convert<identity>;
  constexpr auto kKind = Bulk ? detail::kernel_kind::bulk : detail::kernel_kind::wide;
  int device = 0;
  detail::kernel_capacity capacity;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ((detail::capacity_of<kKind, float, float, float, plus, form>(device, capacity)), cudaSuccess);
  return capacity;
}
template <bool Bulk>
unsigned float_sum_blocks() {
  return float_sum_capacity<Bulk>().blocks;
}
// Whether this device runs the bulk kernel (compute capability 9.0 and up, with this build's
// code for it); where it does not, the named kernel is the wide one and the tests below test that.
bool device_runs_bulk_copies() { return float_sum_blocks<true>() > 0; }

// On a device of compute capability 9.0 or more, the bulk kernel is available: two blocks per SM.
TEST(ReduceBulk, RunsOnComputeCapabilityNineAndUp) {
  WARPFOLD_REQUIRE_GPU();
  int device = 0, major = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  if (major < 9) GTEST_SKIP() << "compute capability " << major << ".x: no bulk copies, the wide kernel runs instead";
  detail::kernel_capacity capacity;
  ASSERT_EQ((detail::capacity_of<detail::kernel_kind::bulk, double, double, double, plus, detail::convert<identity>>(
                device, capacity)),
            cudaSuccess);
  if (capacity.arch < 900) {
    EXPECT_EQ(capacity.blocks, 0u);
    GTEST_SKIP() << "this build's code for the device is compute_" << capacity.arch / 10
                 << ": no bulk copies, the wide kernel runs instead";
  }
  EXPECT_EQ(capacity.blocks, unsigned(sms) * detail::kHopperPolicy.bulk_min_blocks);
  EXPECT_TRUE(device_runs_bulk_copies());
}

// The dispatch's own choice on either side of kHopperPolicy.bulk_above_bytes, seen in the fold order: a float
// sum through the public entry point is bitwise the named wide kernel's at the edge and the
// named bulk kernel's just past it, and exact maxima on both sides. The two kernels fold the same
// vectors in the same order over grids of their resident capacities (3 and 2 blocks per SM):
// where those differ, so do the roundings, and at least one size must tell the kernels apart, or
// the comparison proved nothing. (On a device where the two capacities coincide, so must the
// sums.) The grids are printed, for a failure's log.
TEST(ReduceBulk, DispatchSwitchesToTheBulkKernelAbove256MiB) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t edge = detail::kHopperPolicy.bulk_above_bytes / sizeof(float);
  static_assert(!detail::takes_bulk_tiles<float, float>(detail::kHopperPolicy.bulk_above_bytes / sizeof(float)));
  static_assert(detail::takes_bulk_tiles<float, float>(detail::kHopperPolicy.bulk_above_bytes / sizeof(float) + 1));
  WARPFOLD_REQUIRE_TEST_SIZE(edge + 4099);
  const unsigned wide_grid = float_sum_blocks<false>(), bulk_grid = float_sum_blocks<true>();
  const bool bulk_runs = bulk_grid > 0, grids_differ = bulk_grid != wide_grid;
  const uint64_t seed = new_seed();
  const auto data = order_sensitive_values<float>(edge + 4099, seed);
  offset_buffer<float> buf(data, 1);
  int told_apart = 0;
  for (uint64_t n : {edge - 3, edge, edge + 1, edge + 4099}) {
    const auto run = [&](auto call) {
      return run_two_phase<float>([&](void* t, size_t& b, float* o) { return call(t, b, buf.get(), o, n); });
    };
    const float by_dispatch = run([](auto&&... a) { return reduce(a..., plus{}, 0.0f); });
    const float wide = run([](auto&&... a) { return reduce_through<detail::kernel_pick::wide>(a..., plus{}, 0.0f); });
    const float bulk = run([](auto&&... a) { return reduce_through<detail::kernel_pick::bulk>(a..., plus{}, 0.0f); });
    const bool takes_bulk = bulk_runs && n > edge;
    EXPECT_TRUE(bitwise_equal(by_dispatch, takes_bulk ? bulk : wide))
        << where(n, 1, seed) << ": dispatch " << by_dispatch << ", wide " << wide << ", bulk " << bulk;
    if (!bitwise_equal(wide, bulk)) ++told_apart;
    if (!grids_differ) EXPECT_TRUE(bitwise_equal(wide, bulk)) << where(n, 1, seed) << ": one grid, two sums";
    const float expected = *std::max_element(data.begin(), data.begin() + n);
    EXPECT_EQ(reduce_value(buf.get(), n, maximum{}, std::numeric_limits<float>::lowest()), expected)
        << where(n, 1, seed);
  }
  if (bulk_runs && grids_differ) {
    EXPECT_GT(told_apart, 0) << "the wide and bulk kernels gave bitwise the same sums at every size";
  }
  std::printf("wide grid %u, bulk grid %u blocks\n", wide_grid, bulk_grid);
}

}  // namespace

namespace {

// Accumulators wider than 8 bytes read through every loader: argmax (a value and a 64-bit index)
// and a compensated sum (two doubles), each with the narrow, wide and bulk kernels named, at the
// bulk test's sizes and every offset. argmax must name the first largest element whichever kernel
// ran; the compensated sums must stay within the plain sum's bound and be reproducible.
template <detail::kernel_pick Pick>
void check_wide_accumulators() {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t n : bulk_kernel::sizes()) {
    if (n == 0) continue;
    const uint64_t seed = new_seed();
    auto data = random_values<float>(n, seed, -1.0, 1.0);
    const size_t first = size_t(seed % n), second = size_t((seed >> 20) % n);
    data[std::max(first, second)] = 2.0f;  // two equal maxima: the first must win
    data[std::min(first, second)] = 2.0f;
    const sum_reference ref = reference_sum(data, 0.0);
    for (size_t off : element_offsets<float>()) {
      offset_buffer<float> buf(data, off);
      const auto arg = run_two_phase<key_value<float>>([&](void* t, size_t& b, key_value<float>* o) {
        return detail::dispatch_reduce<Pick>(t, b, buf.get(), o, n, key_value<float>{0.0f, 0}, arg_max{},
                                             detail::with_index{}, cudaStream_t{});
      });
      ASSERT_EQ(arg.value, 2.0f) << where(n, off, seed);
      ASSERT_EQ(arg.index, std::min(first, second)) << where(n, off, seed);
      const auto sum = [&] {
        return run_two_phase<double>([&](void* t, size_t& b, double* o) {
          return detail::dispatch_reduce<Pick>(t, b, buf.get(), o, n, compensated<double>{0.0, 0.0},
                                               compensated_plus{}, detail::compensate{}, cudaStream_t{});
        });
      };
      const double got = sum();
      ASSERT_LE(std::fabs(got - double(ref.sum)), sum_bound(n, 0x1p-53, ref.abs_sum)) << where(n, off, seed);
      if (!representative_run()) ASSERT_TRUE(bitwise_equal(got, sum())) << "not reproducible: " << where(n, off, seed);
    }
  }
}

TEST(ReduceWideAccumulators, ReadThroughTheNarrowKernel) { check_wide_accumulators<detail::kernel_pick::narrow>(); }
TEST(ReduceWideAccumulators, ReadThroughTheWideKernel) { check_wide_accumulators<detail::kernel_pick::wide>(); }
TEST(ReduceWideAccumulators, ReadThroughTheBulkKernel) { check_wide_accumulators<detail::kernel_pick::bulk>(); }

}  // namespace
