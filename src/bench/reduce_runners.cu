// The three libraries' reductions, instantiated for the benchmark's types and operators.
#include "bench/reduce_runners.hpp"

#include "harness/device_buffer.hpp"

#include <warpfold/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <limits>
#include <type_traits>

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

template <class T, ReduceOp Op, bool AnyOrder>
class warpfold_runner final : public runner_base<T> {
 public:
  warpfold_runner(const void* in, uint64_t n, cudaStream_t s) : runner_base<T>(in, n, s) {
    WARPFOLD_CUDA_CHECK(call(nullptr));
    this->temp_ = harness::DeviceBuffer<char>(this->temp_bytes_);
  }
  void run() override { WARPFOLD_CUDA_CHECK(call(this->temp_.get())); }

 private:
  cudaError_t call(void* temp) {
    if constexpr (AnyOrder) {
      return warpfold::reduce(temp, this->temp_bytes_, this->in_, this->out_.get(), this->n_,
                              typename ops<Op>::warpfold_op{}, ops<Op>::template init<T>(), this->stream_,
                              warpfold::any_order);
    } else {
      return warpfold::reduce(temp, this->temp_bytes_, this->in_, this->out_.get(), this->n_,
                              typename ops<Op>::warpfold_op{}, ops<Op>::template init<T>(), this->stream_);
    }
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
    case Library::warpfold: return std::make_unique<warpfold_runner<T, Op, false>>(in, n, s);
    case Library::warpfold_any_order:
      if constexpr (Op == ReduceOp::sum && std::is_floating_point_v<T>) {
        return std::make_unique<warpfold_runner<T, Op, true>>(in, n, s);
      } else {
        return std::make_unique<warpfold_runner<T, Op, false>>(in, n, s);  // the same kernel: nothing to choose
      }
    case Library::cub: return std::make_unique<cub_runner<T, Op>>(in, n, s);
    case Library::thrust: return std::make_unique<thrust_runner<T, Op>>(in, n, s);
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

}  // namespace warpfold::bench
