// The wide and bulk kernels, each named explicitly, through the same checks: exact integer sums
// (wrapping, widened), maxima and minima with one unique extreme, xor, floating-point sums within
// the narrow kernel's bound and bitwise the same on a rerun, and exact float and double totals.
// Where a device or build has no bulk copies, the bulk kernel runs as the wide one, and is tested
// as that. Each kernel's own file holds what only it does (the dispatch's thresholds, the stages).
#include "gpu/named_kernels.cuh"

#include <algorithm>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

template <class Kernel>
class ReduceNamedKernel : public ::testing::Test {
 protected:
  // Checks the kernel's reduce exactly against the CPU fold, at its sizes below `below`.
  template <class T, class Acc, class Op, class Ref, class Make>
  static void check_exact(Op op, Acc init, Ref ref_op, Make make_data, uint64_t below = UINT64_MAX) {
    WARPFOLD_REQUIRE_GPU();
    std::vector<uint64_t> sizes = Kernel::sizes();
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](uint64_t n) { return n >= below; }), sizes.end());
    check_exact_reduce<T>(sizes, init, ref_op, make_data, [&](void* t, size_t& b, const T* in, Acc* o, uint64_t n) {
      return reduce_through<Kernel::pick>(t, b, in, o, n, op, init);
    });
  }

  // Sums within the bound of the narrow kernel's tests (sum_bound), bitwise the same on a rerun.
  template <class T>
  static void check_float_sum() {
    WARPFOLD_REQUIRE_GPU();
    check_sum_within_bound<T, T>(
        Kernel::sizes(),
        [](uint64_t n, long double abs_sum) { return sum_bound(n, std::numeric_limits<T>::epsilon() / 2, abs_sum); },
        [](void* t, size_t& b, const T* in, T* o, uint64_t n) {
          return reduce_through<Kernel::pick>(t, b, in, o, n, plus{}, T(0.5));
        });
  }
};

struct KernelName {
  template <class Kernel>
  static std::string GetName(int) {
    return Kernel::name();
  }
};

using NamedKernels = ::testing::Types<wide_kernel, bulk_kernel>;
TYPED_TEST_SUITE(ReduceNamedKernel, NamedKernels, KernelName);

TYPED_TEST(ReduceNamedKernel, Int32SumWrapsAtFullWidth) {
  this->template check_exact<int32_t, int32_t>(
      plus{}, int32_t(3), [](int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); },
      uniform_data<int32_t>(-2147483648.0, 2147483647.0));
}
TYPED_TEST(ReduceNamedKernel, Int32SumIntoInt64) {
  this->template check_exact<int32_t, int64_t>(plus{}, int64_t(7), [](int64_t a, int64_t b) { return a + b; },
                                               uniform_data<int32_t>(-1e9, 1e9));
}
TYPED_TEST(ReduceNamedKernel, Int32Max) {
  this->template check_exact<int32_t, int32_t>(maximum{}, std::numeric_limits<int32_t>::min(),
                                               [](int32_t a, int32_t b) { return std::max(a, b); },
                                               data_with_unique_extreme<int32_t>(false));
}
TYPED_TEST(ReduceNamedKernel, Uint32Xor) {
  this->template check_exact<uint32_t, uint32_t>(bit_xor{}, 0u, [](uint32_t a, uint32_t b) { return a ^ b; },
                                                 uniform_data<uint32_t>(0, 4294967295.0));
}
TYPED_TEST(ReduceNamedKernel, Int64Min) {
  this->template check_exact<int64_t, int64_t>(minimum{}, std::numeric_limits<int64_t>::max(),
                                               [](int64_t a, int64_t b) { return std::min(a, b); },
                                               data_with_unique_extreme<int64_t>(true));
}
TYPED_TEST(ReduceNamedKernel, FloatAndDoubleMax) {
  this->template check_exact<float, float>(maximum{}, std::numeric_limits<float>::lowest(),
                                           [](float a, float b) { return std::max(a, b); }, uniform_data<float>(-1e30, 1e30));
  this->template check_exact<double, double>(maximum{}, std::numeric_limits<double>::lowest(),
                                             [](double a, double b) { return std::max(a, b); },
                                             uniform_data<double>(-1e300, 1e300));
}
TYPED_TEST(ReduceNamedKernel, FloatSum) { this->template check_float_sum<float>(); }
TYPED_TEST(ReduceNamedKernel, DoubleSum) { this->template check_float_sum<double>(); }
// Exact totals (exact_sum_data, below 2^24 elements): a dropped or repeated element, or a bulk
// stage read before its copy landed or after the next overwrote it, shows whatever the fold order.
TYPED_TEST(ReduceNamedKernel, ExactFloatAndDoubleSums) {
  constexpr uint64_t kBelow = uint64_t(1) << 24;
  this->template check_exact<float, float>(plus{}, 0.5f, [](float a, float b) { return a + b; }, exact_sum_data<float>(),
                                           kBelow);
  this->template check_exact<double, double>(plus{}, 0.5, [](double a, double b) { return a + b; },
                                             exact_sum_data<double>(), kBelow);
}

}  // namespace
