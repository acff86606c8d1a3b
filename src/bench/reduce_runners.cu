// The three libraries' reductions, instantiated for the benchmark's types and operators.
#include "bench/reduce_runners.hpp"

#include "bench/no_combine.cuh"
#include "harness/device_buffer.hpp"
#include "harness/sanitizer.hpp"
#include "harness/host_float_convert.hpp"

#include <warpfold/reduce.cuh>
#include <warpfold/reproducible.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace warpfold::bench {
namespace {

__global__ void empty_kernel() {}

// The accumulator of each element type's sum (accumulator_of says the same in words).
template <class T> struct sum_accumulator { using type = T; };
template <> struct sum_accumulator<int8_t> { using type = int64_t; };
template <> struct sum_accumulator<__half> { using type = float; };

// The smallest value of T: the maximum's init.
template <class T>
T lowest() {
  if constexpr (std::is_same_v<T, __half>) return harness::from_double<__half>(-INFINITY);
  else return std::numeric_limits<T>::lowest();
}

// A sum in Acc, for CUB and Thrust where the input is narrower than the accumulator (their own
// plus<> would add int8 to int64 or __half to float through an ambiguous conversion).
template <class Acc>
struct plus_in {
  __host__ __device__ Acc operator()(const Acc& a, const Acc& b) const { return a + b; }
};

// The same operator in each library's vocabulary, with its accumulator.
template <class T, ReduceOp Op> struct ops;
template <class T> struct ops<T, ReduceOp::sum> {
  using acc = typename sum_accumulator<T>::type;
  using warpfold_op = warpfold::plus;
  using std_op = std::conditional_t<std::is_same_v<acc, T>, cuda::std::plus<>, plus_in<acc>>;
  static acc init() { return acc(0); }
};
template <class T> struct ops<T, ReduceOp::max> {
  using acc = T;
  using warpfold_op = warpfold::maximum;
  using std_op = cuda::maximum<>;
  static acc init() { return lowest<T>(); }
};

// A two-phase call (CUB's convention: a size query with null temp storage, then the run) of one
// library, on one input: Call(temp, bytes, in, out, n, stream) returns its cudaError_t.
template <class T, ReduceOp Op, class Call>
class two_phase_runner final : public ReduceRunner {
 public:
  using acc = typename ops<T, Op>::acc;
  two_phase_runner(const void* in, uint64_t n, cudaStream_t s) : in_(static_cast<const T*>(in)), n_(n), stream_(s), out_(1) {
    WARPFOLD_CUDA_CHECK(call(nullptr));
    temp_ = harness::fresh_temp_storage(temp_bytes_, stream_);
  }
  void run() override { WARPFOLD_CUDA_CHECK(call(temp_.get())); }
  double result() override {
    acc v{};
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&v, out_.get(), sizeof(acc), cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return harness::to_double(v);
  }

 private:
  cudaError_t call(void* temp) { return Call{}(temp, temp_bytes_, in_, out_.get(), n_, stream_); }
  const T* in_;
  uint64_t n_;
  cudaStream_t stream_;
  harness::DeviceBuffer<acc> out_;
  harness::DeviceBuffer<char> temp_;
  size_t temp_bytes_ = 0;
};

template <class T, ReduceOp Op>
struct warpfold_call {
  template <class Acc>
  cudaError_t operator()(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, cudaStream_t s) const {
    return warpfold::reduce(temp, bytes, in, out, n, typename ops<T, Op>::warpfold_op{}, ops<T, Op>::init(), s);
  }
};

// warpfold::reproducible_sum, for the float and double sums (its result is the accumulator's
// type, as the plain sum's is there).
template <class T, ReduceOp Op>
struct reproducible_call {
  template <class Acc>
  cudaError_t operator()(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, cudaStream_t s) const {
    return warpfold::reproducible_sum(temp, bytes, in, out, n, s);
  }
};

template <class T, ReduceOp Op>
struct cub_call {
  template <class Acc>
  cudaError_t operator()(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, cudaStream_t s) const {
    return cub::DeviceReduce::Reduce(temp, bytes, in, out, int64_t(n), typename ops<T, Op>::std_op{},
                                     ops<T, Op>::init(), s);
  }
};

// The no-combine row (no_combine.cuh) for n elements of T: the kernel kind, grid and tile shape
// that warpfold::reduce plans for them (the wide tiles where it takes them, bulk copies where it
// takes those, the same blocks per SM), launched the same way (probe::launch_kernel, through
// detail/read_probe.cuh). It reads the input's whole 16-byte vectors: every byte for the bench's
// sizes from 16 bytes up, none below (word_xor in bench_run.cpp checks the same words).
template <class T>
class no_combine_runner final : public ReduceRunner {
 public:
  no_combine_runner(const void* in, uint64_t n, cudaStream_t s)
      : in_(static_cast<const unsigned*>(in)), vectors_(n * sizeof(T) / 16), stream_(s) {
    if (reinterpret_cast<uintptr_t>(in) % 16 != 0) {
      throw std::invalid_argument("the no-combine row reads 16-byte vectors from a 16-byte aligned input");
    }
    WARPFOLD_CUDA_CHECK(cudaGetDevice(&device_));
    WARPFOLD_CUDA_CHECK(probe::compiled_arch<&no_combine<kind::narrow>>(arch_));
    const probe::reduce_policy policy = probe::policy_for_arch(arch_);
    unsigned max_blocks = 0;
    // Where warpfold's kernel takes bulk copies, so does this row, where this build has them.
    if (policy.bulk_stages > 0 && probe::takes_bulk_tiles<T, T>(n, policy)) {
      kind_ = kind::bulk;
      WARPFOLD_CUDA_CHECK(probe::resident_blocks<&no_combine<kind::bulk>>(
          device_, policy.threads, policy.bulk_shared_bytes(), policy.bulk_min_blocks, max_blocks));
    } else if (probe::takes_wide_tiles<T, T>(n, policy)) {
      kind_ = kind::wide;
      WARPFOLD_CUDA_CHECK(probe::resident_blocks<&no_combine<kind::wide>>(device_, policy.threads, 0,
                                                                            policy.wide_min_blocks, max_blocks));
    } else {
      WARPFOLD_CUDA_CHECK(probe::resident_blocks<&no_combine<kind::narrow>>(device_, policy.threads, 0,
                                                                              policy.narrow_min_blocks, max_blocks));
    }
    grid_ = probe::plan_reduce(n, reinterpret_cast<uintptr_t>(in), sizeof(T), probe::vector_elements<T>,
                                policy.threads, max_blocks, policy.threads, policy.vectors(kind_),
                                policy.single_block_max_tiles)
                .grid;
    block_words_ = harness::DeviceBuffer<unsigned>(grid_);
  }
  void run() override {
    unsigned* words = block_words_.get();
    void* args[] = {&in_, &vectors_, &words};
    const dim3 grid(grid_), block(probe::kThreads);
    cudaError_t rc = cudaSuccess;
    switch (kind_) {
      case kind::narrow: rc = probe::launch_kernel<&no_combine<kind::narrow>>(device_, grid, block, args, stream_); break;
      case kind::wide: rc = probe::launch_kernel<&no_combine<kind::wide>>(device_, grid, block, args, stream_); break;
      case kind::bulk:
        rc = probe::launch_kernel<&no_combine<kind::bulk>>(device_, grid, block, args, stream_,
                                                            probe::policy_for_arch(arch_).bulk_shared_bytes());
        break;
    }
    WARPFOLD_CUDA_CHECK(rc);
  }
  double result() override {
    std::vector<unsigned> words(grid_);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(words.data(), block_words_.get(), grid_ * sizeof(unsigned),
                                        cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    unsigned x = 0;
    for (unsigned w : words) x ^= w;
    return double(x);
  }

 private:
  using kind = probe::kernel_kind;
  const unsigned* in_;
  uint64_t vectors_;
  cudaStream_t stream_;
  int device_ = 0;
  unsigned arch_ = 0;
  kind kind_ = kind::narrow;
  unsigned grid_ = 1;
  harness::DeviceBuffer<unsigned> block_words_;
};

// thrust::reduce returns the value, so it synchronises; its temp storage comes from Thrust's
// default allocator on every call, as in ordinary use.
template <class T, ReduceOp Op>
class thrust_runner final : public ReduceRunner {
 public:
  thrust_runner(const void* in, uint64_t n, cudaStream_t s) : in_(static_cast<const T*>(in)), n_(n), stream_(s) {}
  void run() override {
    value_ = thrust::reduce(thrust::cuda::par.on(stream_), in_, in_ + n_, ops<T, Op>::init(),
                            typename ops<T, Op>::std_op{});
  }
  double result() override { return harness::to_double(value_); }

 private:
  const T* in_;
  uint64_t n_;
  cudaStream_t stream_;
  typename ops<T, Op>::acc value_{};
};

template <class T, ReduceOp Op>
std::unique_ptr<ReduceRunner> make_typed(Library lib, const void* in, uint64_t n, cudaStream_t s) {
  switch (lib) {
    case Library::warpfold:
    case Library::warpfold_again: return std::make_unique<two_phase_runner<T, Op, warpfold_call<T, Op>>>(in, n, s);
    case Library::cub: return std::make_unique<two_phase_runner<T, Op, cub_call<T, Op>>>(in, n, s);
    case Library::thrust: return std::make_unique<thrust_runner<T, Op>>(in, n, s);
    case Library::no_combine: return std::make_unique<no_combine_runner<T>>(in, n, s);
    case Library::warpfold_reproducible:
      if constexpr (Op == ReduceOp::sum && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
        return std::make_unique<two_phase_runner<T, Op, reproducible_call<T, Op>>>(in, n, s);
      }
      throw std::invalid_argument("the reproducible sum's row is for float and double sums");
  }
  return nullptr;
}

template <class T>
std::unique_ptr<ReduceRunner> make_for_type(Library lib, ReduceOp op, const void* in, uint64_t n, cudaStream_t s) {
  return op == ReduceOp::sum ? make_typed<T, ReduceOp::sum>(lib, in, n, s) : make_typed<T, ReduceOp::max>(lib, in, n, s);
}

}  // namespace

std::unique_ptr<ReduceRunner> make_runner(Library lib, ElementType type, ReduceOp op, const void* d_in, uint64_t n,
                                          cudaStream_t stream) {
  switch (type) {
    case ElementType::int8: return make_for_type<int8_t>(lib, op, d_in, n, stream);
    case ElementType::float16: return make_for_type<__half>(lib, op, d_in, n, stream);
    case ElementType::int32: return make_for_type<int32_t>(lib, op, d_in, n, stream);
    case ElementType::float32: return make_for_type<float>(lib, op, d_in, n, stream);
    case ElementType::float64: return make_for_type<double>(lib, op, d_in, n, stream);
  }
  return nullptr;
}

void launch_empty_kernel(cudaStream_t stream) { empty_kernel<<<1, 1, 0, stream>>>(); }

void launch_empty_kernel_as_warpfold(int device, cudaStream_t stream) {
  WARPFOLD_CUDA_CHECK(probe::launch_kernel<&empty_kernel>(device, dim3(1), dim3(1), nullptr, stream));
}

unsigned warpfold_code_arch() {
  unsigned arch = 0;
  WARPFOLD_CUDA_CHECK(probe::compiled_arch<&no_combine<probe::kernel_kind::narrow>>(arch));
  return arch;
}

}  // namespace warpfold::bench
