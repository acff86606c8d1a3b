// The three libraries' reductions, instantiated for the benchmark's types and operators.
#include "bench/reduce_runners.hpp"

#include "bench/no_combine.cuh"
#include "harness/device_buffer.hpp"

#include <warpfold/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <limits>
#include <stdexcept>
#include <vector>

namespace warpfold::bench {
namespace {

__global__ void empty_kernel() {}

template <class T>
T lowest() { return std::numeric_limits<T>::lowest(); }

// The same operator in each library's vocabulary.
template <ReduceOp Op> struct ops;
template <> struct ops<ReduceOp::sum> {
  using warpfold_op = warpfold::plus;
  using std_op = cuda::std::plus<>;
  template <class T> static T init() { return T(0); }
};
template <> struct ops<ReduceOp::max> {
  using warpfold_op = warpfold::maximum;
  using std_op = cuda::maximum<>;
  template <class T> static T init() { return lowest<T>(); }
};

template <class T>
class runner_base : public ReduceRunner {
 public:
  runner_base(const void* in, uint64_t n, cudaStream_t s) : in_(static_cast<const T*>(in)), n_(n), stream_(s), out_(1) {}
  double result() override {
    T v{};
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&v, out_.get(), sizeof(T), cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return double(v);
  }

 protected:
  const T* in_;
  uint64_t n_;
  cudaStream_t stream_;
  harness::DeviceBuffer<T> out_;
  harness::DeviceBuffer<char> temp_;
  size_t temp_bytes_ = 0;
};

template <class T, ReduceOp Op>
class warpfold_runner final : public runner_base<T> {
 public:
  warpfold_runner(const void* in, uint64_t n, cudaStream_t s) : runner_base<T>(in, n, s) {
    WARPFOLD_CUDA_CHECK(call(nullptr));
    this->temp_ = harness::DeviceBuffer<char>(this->temp_bytes_);
  }
  void run() override { WARPFOLD_CUDA_CHECK(call(this->temp_.get())); }

 private:
  cudaError_t call(void* temp) {
    return warpfold::reduce(temp, this->temp_bytes_, this->in_, this->out_.get(), this->n_,
                            typename ops<Op>::warpfold_op{}, ops<Op>::template init<T>(), this->stream_);
  }
};

template <class T, ReduceOp Op>
class cub_runner final : public runner_base<T> {
 public:
  cub_runner(const void* in, uint64_t n, cudaStream_t s) : runner_base<T>(in, n, s) {
    WARPFOLD_CUDA_CHECK(call(nullptr));
    this->temp_ = harness::DeviceBuffer<char>(this->temp_bytes_);
  }
  void run() override { WARPFOLD_CUDA_CHECK(call(this->temp_.get())); }

 private:
  cudaError_t call(void* temp) {
    return cub::DeviceReduce::Reduce(temp, this->temp_bytes_, this->in_, this->out_.get(), int64_t(this->n_),
                                     typename ops<Op>::std_op{}, ops<Op>::template init<T>(), this->stream_);
  }
};

// The no-combine row (no_combine.cuh) for n elements of T: the grid and tile shape that
// warpfold::reduce plans for them (the wide tiles where it takes them, bulk copies where it takes
// those, the same blocks per SM), launched the same way (detail::launch_kernel). It reads the
// input's whole 16-byte vectors: every byte for the bench's sizes from 16 bytes up, none below
// (word_xor in bench_run.cpp checks the same words).
template <class T>
class no_combine_runner final : public ReduceRunner {
 public:
  no_combine_runner(const void* in, uint64_t n, cudaStream_t s)
      : in_(static_cast<const detail::vector_of<unsigned, 4>*>(in)), vectors_(n * sizeof(T) / 16), stream_(s) {
    if (reinterpret_cast<uintptr_t>(in) % 16 != 0) {
      throw std::invalid_argument("the no-combine row reads 16-byte vectors from a 16-byte aligned input");
    }
    WARPFOLD_CUDA_CHECK(cudaGetDevice(&device_));
    unsigned max_blocks = 0;
    // Where warpfold's kernel takes bulk copies (detail::max_bulk_reduce_blocks), so does this row:
    // the blocks per SM its shared memory allows, or none where this build has no bulk copies for
    // the device.
    if (detail::takes_bulk_tiles<T, T>(n)) {
      constexpr auto bulk_kernel = &no_combine<kWide, true>;
      WARPFOLD_CUDA_CHECK(
          detail::max_bulk_blocks<bulk_kernel>(device_, max_blocks, detail::reduce_policy::bulk_min_blocks_per_sm));
    }
    if (max_blocks > 0) {
      reads_ = reads::bulk;
    } else if (detail::takes_wide_tiles<T, T>(n)) {
      reads_ = reads::wide;
      WARPFOLD_CUDA_CHECK(detail::max_resident_blocks<&no_combine<kWide>>(
          device_, max_blocks, detail::reduce_policy::wide_min_blocks_per_sm));
    } else {
      WARPFOLD_CUDA_CHECK(detail::max_resident_blocks<&no_combine<kNarrow>>(
          device_, max_blocks, detail::reduce_policy::min_blocks_per_sm));
    }
    grid_ = detail::plan_reduce(n, reinterpret_cast<uintptr_t>(in), sizeof(T), detail::vector_elements<T>,
                                kNoCombineThreads, max_blocks, kNoCombineThreads,
                                reads_ == reads::narrow ? kNarrow : kWide)
                .grid;
    block_words_ = harness::DeviceBuffer<unsigned>(grid_);
  }
  void run() override {
    unsigned* words = block_words_.get();
    void* args[] = {&in_, &vectors_, &words};
    const dim3 grid(grid_), block(kNoCombineThreads);
    cudaError_t rc = cudaSuccess;
    switch (reads_) {
      case reads::narrow: rc = detail::launch_kernel<&no_combine<kNarrow>>(device_, grid, block, args, stream_); break;
      case reads::wide: rc = detail::launch_kernel<&no_combine<kWide>>(device_, grid, block, args, stream_); break;
      case reads::bulk:
        rc = detail::launch_kernel<&no_combine<kWide, true>>(device_, grid, block, args, stream_,
                                                             detail::kBulkSharedBytes);
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
  static constexpr unsigned kNarrow = detail::reduce_policy::vectors_in_flight;
  static constexpr unsigned kWide = detail::reduce_policy::wide_vectors_in_flight;
  const detail::vector_of<unsigned, 4>* in_;
  uint64_t vectors_;
  cudaStream_t stream_;
  enum class reads { narrow, wide, bulk };
  int device_ = 0;
  reads reads_ = reads::narrow;
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
    value_ = thrust::reduce(thrust::cuda::par.on(stream_), in_, in_ + n_, ops<Op>::template init<T>(),
                            typename ops<Op>::std_op{});
  }
  double result() override { return double(value_); }

 private:
  const T* in_;
  uint64_t n_;
  cudaStream_t stream_;
  T value_{};
};

template <class T, ReduceOp Op>
std::unique_ptr<ReduceRunner> make_typed(Library lib, const void* in, uint64_t n, cudaStream_t s) {
  switch (lib) {
    case Library::warpfold:
    case Library::warpfold_again: return std::make_unique<warpfold_runner<T, Op>>(in, n, s);
    case Library::cub: return std::make_unique<cub_runner<T, Op>>(in, n, s);
    case Library::thrust: return std::make_unique<thrust_runner<T, Op>>(in, n, s);
    case Library::no_combine: return std::make_unique<no_combine_runner<T>>(in, n, s);
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
    case ElementType::int32: return make_for_type<int32_t>(lib, op, d_in, n, stream);
    case ElementType::float32: return make_for_type<float>(lib, op, d_in, n, stream);
    case ElementType::float64: return make_for_type<double>(lib, op, d_in, n, stream);
  }
  return nullptr;
}

void launch_empty_kernel(cudaStream_t stream) { empty_kernel<<<1, 1, 0, stream>>>(); }

void launch_empty_kernel_as_warpfold(int device, cudaStream_t stream) {
  WARPFOLD_CUDA_CHECK(detail::launch_kernel<&empty_kernel>(device, dim3(1), dim3(1), nullptr, stream));
}

}  // namespace warpfold::bench
