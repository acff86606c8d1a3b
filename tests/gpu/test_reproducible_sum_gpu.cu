// warpfold::reproducible_sum on the device: bitwise the CPU port of ReproBLAS
// (reference/reproblas.hpp) at every awkward size, every pointer offset the type allows, through
// every kernel the reduce can name, on every kind of data; the accumulator's device path
// (accumulate, and op(acc, lift(x))) over grids and blocks of many shapes; half and bfloat16
// into float; the empty sum; NaN and infinities as documented; streams. The CPU tests hold the
// accumulator to ReproBLAS's recorded sums and to the exact sum.
#include "gpu/reduce_test_support.cuh"

#include "reference/reproducible_support.hpp"

#include <warpfold/reproducible.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

template <class T>
using acc_t = detail::binned_accumulator<reproducible_sum_t<T>>;

// A reproducible sum through a named kernel (as test_reduce_wide_gpu.cu names them), or the
// dispatch's own choice (by_size).
template <detail::kernel_pick Pick, class T>
reproducible_sum_t<T> sum_by(const T* in, uint64_t n, cudaStream_t stream = 0) {
  // run_two_phase reads the result on the legacy default stream, which does not
  // wait for a non-blocking stream: the sum is waited for here.
  return run_two_phase<reproducible_sum_t<T>>([&](void* t, size_t& b, reproducible_sum_t<T>* o) {
    const cudaError_t rc = detail::dispatch_reproducible_sum<Pick>(t, b, in, o, n, stream);
    return rc == cudaSuccess && t != nullptr ? cudaStreamSynchronize(stream) : rc;
  });
}

// The sums by every kernel: the dispatch's choice, the narrow, wide and bulk kernels (the bulk
// kernel runs as the wide one on a device or build without bulk copies).
template <class T>
std::vector<std::pair<std::string, reproducible_sum_t<T>>> sums_by_every_kernel(const T* in, uint64_t n) {
  using detail::kernel_pick;
  static_assert(detail::has_wide_loads<T>, "every element type here has the wide loads");
  return {{"dispatch", sum_by<kernel_pick::by_size>(in, n)},
          {"narrow", sum_by<kernel_pick::narrow>(in, n)},
          {"wide", sum_by<kernel_pick::wide>(in, n)},
          {"bulk", sum_by<kernel_pick::bulk>(in, n)}};
}

// Every size of the reduce tests (and a few past ReproBLAS's endurances), each with the next kind
// of data in turn, at every offset, through every kernel: ReproBLAS's bits, every time.
template <class T>
void check_against_reproblas() {
  WARPFOLD_REQUIRE_GPU();
  std::vector<uint64_t> sizes = reduce_sizes();
  for (uint64_t n : {511ull, 513ull, 2047ull, 2049ull, 100003ull}) sizes.push_back(n);
  const auto& kinds = every_sum_data();
  for (size_t k = 0; k < sizes.size(); ++k) {
    const uint64_t n = sizes[k], seed = new_seed();
    const sum_data kind = kinds[k % kinds.size()];
    const auto data = make_sum_data<T>(kind, n, seed);
    const auto expected = reference_sum(data);
    for (size_t off : element_offsets<T>()) {
      offset_buffer<T> buf(data, off);
      for (const auto& [kernel, got] : sums_by_every_kernel(buf.get(), n)) {
        ASSERT_TRUE(same_bits(got, expected)) << name_of(kind) << " data, " << kernel << " kernel, " << where(n, off, seed)
                                              << ": " << bits_of(got) << ", ReproBLAS " << bits_of(expected);
      }
    }
  }
}

TEST(ReproducibleSumGpu, FloatIsReproBLASAtEveryOffsetAndKernel) { check_against_reproblas<float>(); }
TEST(ReproducibleSumGpu, DoubleIsReproBLASAtEveryOffsetAndKernel) { check_against_reproblas<double>(); }
TEST(ReproducibleSumGpu, HalfIntoFloatIsReproBLASAtEveryOffsetAndKernel) { check_against_reproblas<__half>(); }
TEST(ReproducibleSumGpu, Bfloat16IntoFloatIsReproBLASAtEveryOffsetAndKernel) { check_against_reproblas<__nv_bfloat16>(); }

// Past a resident wave of blocks, on data whose plain sum depends strongly on the fold order
// (cancelling halves of 1000 + u): the plain sums of two fold orders differ, the reproducible
// ones are ReproBLAS's at each offset.
template <class T>
void check_order_sensitive_sum(uint64_t n) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  const uint64_t seed = new_seed();
  const auto data = order_sensitive_values<T>(n, seed);
  const auto expected = reference_sum(data);
  std::vector<T> plain;
  for (size_t off : element_offsets<T>()) {
    offset_buffer<T> buf(data, off);
    EXPECT_TRUE(same_bits(sum_by<detail::kernel_pick::by_size>(buf.get(), n), expected)) << where(n, off, seed) << ", ReproBLAS " << bits_of(expected);
    plain.push_back(reduce_value(buf.get(), n, plus{}, T(0)));
  }
  // Two offsets of an 8-byte type may share one fold order; the sequential order is another.
  plain.push_back(std::accumulate(data.begin(), data.end(), T(0)));
  EXPECT_TRUE(std::any_of(plain.begin(), plain.end(), [&](T x) { return !same_bits(x, plain[0]); }))
      << "the plain sums agreed in every order: the data did not tell fold orders apart, seed " << seed;
}

TEST(ReproducibleSumGpu, FloatIsReproBLASWherePlainSumsDiffer) { check_order_sensitive_sum<float>((1ull << 24) + 3); }
TEST(ReproducibleSumGpu, DoubleIsReproBLASWherePlainSumsDiffer) { check_order_sensitive_sum<double>((1ull << 23) + 1); }

// The accumulator's device path apart from the reduce kernel: thread t of a grid of any shape
// folds elements t, t + threads, ... by accumulate (the path of a kernel that calls it) or by
// op(acc, lift(x)) (today's kernel's), from the empty accumulator; the host merges the threads'
// accumulators in a random tree. Device deposits and host merges together give ReproBLAS's bits.
template <class T, bool ByLift>
__global__ void fold_strided(const T* in, uint64_t n, acc_t<T>* out) {
  using F = reproducible_sum_t<T>;
  const detail::binned_sum_form<F> form;
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  const uint64_t first = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  acc_t<T> acc{};
  for (uint64_t i = first; i < n; i += threads) {
    if constexpr (ByLift) {
      const acc_t<T> lifted = form.template lift<acc_t<T>>(in[i], i);
      acc = i == first ? lifted : detail::binned_plus{}(acc, lifted);
    } else {
      form.accumulate(acc, in[i], i);
    }
  }
  out[first] = acc;
}

template <class T>
void check_grid_shapes() {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = 300007;
  for (sum_data kind : every_sum_data()) {
    const uint64_t seed = new_seed();
    const auto data = make_sum_data<T>(kind, n, seed);
    const auto expected = reference_sum(data);
    offset_buffer<T> buf(data, 1);
    std::mt19937_64 gen(seed);
    const std::vector<std::pair<unsigned, unsigned>> shapes{{1, 32}, {3, 96}, {7, 64}, {33, 256}, {13, 1024}};
    for (const auto& [grid, block] : shapes) {
      for (bool by_lift : {false, true}) {
        const unsigned threads = grid * block;
        acc_t<T>* out = nullptr;
        ASSERT_EQ(cudaMalloc(&out, threads * sizeof(acc_t<T>)), cudaSuccess);
        if (by_lift) fold_strided<T, true><<<grid, block>>>(buf.get(), n, out);
        else fold_strided<T, false><<<grid, block>>>(buf.get(), n, out);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        std::vector<acc_t<T>> parts(threads);
        ASSERT_EQ(cudaMemcpy(parts.data(), out, threads * sizeof(acc_t<T>), cudaMemcpyDeviceToHost), cudaSuccess);
        cudaFree(out);
        const auto got = detail::binned_value(merge_in_random_tree(parts, gen));
        ASSERT_TRUE(same_bits(got, expected)) << name_of(kind) << " data, " << grid << " x " << block
                                              << (by_lift ? " by lift" : " by accumulate") << ", seed " << seed << ": "
                                              << bits_of(got) << ", ReproBLAS " << bits_of(expected);
      }
    }
  }
}

TEST(ReproducibleSumGpu, FloatAccumulatorOnTheDeviceOverGridShapes) { check_grid_shapes<float>(); }
TEST(ReproducibleSumGpu, DoubleAccumulatorOnTheDeviceOverGridShapes) { check_grid_shapes<double>(); }
TEST(ReproducibleSumGpu, HalfAccumulatorOnTheDeviceOverGridShapes) { check_grid_shapes<__half>(); }

// n = 0 writes +0 (into an output poisoned before the call), for every element type.
template <class T>
void check_empty() {
  const auto got = sum_by<detail::kernel_pick::by_size>(static_cast<const T*>(nullptr), 0);
  EXPECT_TRUE(same_bits(got, reproducible_sum_t<T>(0))) << bits_of(got);
}

TEST(ReproducibleSumGpu, EmptyInputIsPositiveZero) {
  WARPFOLD_REQUIRE_GPU();
  check_empty<float>();
  check_empty<double>();
  check_empty<__half>();
  check_empty<__nv_bfloat16>();
}

// NaN and infinities as reproducible.cuh documents, wherever they sit and at every offset: the
// canonical NaN's bits, the infinity's, the overflow's +inf.
template <class T>
void check_special(const std::vector<double>& special, reproducible_sum_t<T> expected, const std::string& what) {
  const uint64_t n = 100003, seed = new_seed();
  auto data = make_sum_data<T>(sum_data::uniform, n, seed);
  for (size_t k = 0; k < special.size(); ++k) plant(data, harness::from_double<T>(special[k]), seed + k);
  for (size_t off : element_offsets<T>()) {
    offset_buffer<T> buf(data, off);
    for (const auto& [kernel, got] : sums_by_every_kernel(buf.get(), n))
      EXPECT_TRUE(same_bits(got, expected)) << what << ", " << kernel << " kernel, " << where(n, off, seed) << ": " << bits_of(got);
  }
}

template <class T>
void check_nan_and_infinities() {
  using F = reproducible_sum_t<T>;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const F canonical_nan = detail::binned_canonical_nan<F>();
  check_special<T>({nan}, canonical_nan, "a NaN");
  check_special<T>({-nan, 1.0}, canonical_nan, "a negative NaN");
  check_special<T>({inf}, std::numeric_limits<F>::infinity(), "+inf");
  check_special<T>({-inf, -inf}, -std::numeric_limits<F>::infinity(), "-inf twice");
  check_special<T>({inf, -inf}, canonical_nan, "+inf and -inf");
  check_special<T>({nan, -inf}, canonical_nan, "NaN and -inf");
  if constexpr (std::is_same_v<T, F>) {
    const double big = double(std::numeric_limits<F>::max());
    check_special<T>({big, big}, std::numeric_limits<F>::infinity(), "a finite sum past the largest value");
  }
}

TEST(ReproducibleSumGpu, NaNAndInfinitiesFloat) {
  WARPFOLD_REQUIRE_GPU();
  check_nan_and_infinities<float>();
}
TEST(ReproducibleSumGpu, NaNAndInfinitiesDouble) {
  WARPFOLD_REQUIRE_GPU();
  check_nan_and_infinities<double>();
}
TEST(ReproducibleSumGpu, NaNAndInfinitiesHalfAndBfloat16) {
  WARPFOLD_REQUIRE_GPU();
  check_nan_and_infinities<__half>();
  check_nan_and_infinities<__nv_bfloat16>();
}

// The same bits on other streams, run after run.
TEST(ReproducibleSumGpu, StreamsAndRerunsGiveTheSameBits) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = (1u << 20) + 7, seed = new_seed();
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  const auto data = make_sum_data<float>(sum_data::mixed_magnitudes, n, seed);
  const float expected = reference_sum(data);
  offset_buffer<float> buf(data, 3);
  cudaStream_t streams[2];
  for (auto& s : streams) ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (int run = 0; run < 3; ++run) {
    for (cudaStream_t s : {cudaStream_t{}, streams[0], streams[1]})
      EXPECT_TRUE(same_bits(sum_by<detail::kernel_pick::by_size>(buf.get(), n, s), expected)) << "run " << run << ", seed " << seed;
  }
  for (auto& s : streams) cudaStreamDestroy(s);
}

// A float accumulator refuses more elements than its capacity (ReproBLAS's binned_SBCAPACITY),
// before it asks for a device; null and misaligned pointers are the reduce's errors. No GPU needed.
TEST(ReproducibleSumGpu, BadArgumentsAndFloatCapacityAreErrors) {
  void* temp = reinterpret_cast<void*>(uintptr_t(1) << 20);
  const auto* in = reinterpret_cast<const float*>(uintptr_t(1) << 21);
  auto* out = reinterpret_cast<float*>(uintptr_t(1) << 22);
  size_t bytes = 1 << 20;
  const uint64_t capacity = detail::binned_params<float>::capacity;
  EXPECT_EQ(reproducible_sum(temp, bytes, in, out, capacity + 1), cudaErrorInvalidValue);
  EXPECT_EQ(reproducible_sum(temp, bytes, reinterpret_cast<const __half*>(in), out, capacity + 1), cudaErrorInvalidValue);
  EXPECT_EQ(reproducible_sum(temp, bytes, static_cast<const float*>(nullptr), out, 10), cudaErrorInvalidValue);
  EXPECT_EQ(reproducible_sum(temp, bytes, in + 1, reinterpret_cast<float*>(uintptr_t(out) + 2), 10),
            cudaErrorMisalignedAddress);
}

}  // namespace
