// The local reduce and the NCCL combine of one GPU, instantiated for the command's types and operators.
#include "multigpu/rank_pipeline.hpp"

#include "harness/device_buffer.hpp"
#include "harness/sanitizer.hpp"
#include "multigpu/shard_values.hpp"

#include <warpfold/distributed.cuh>

#include <type_traits>

namespace warpfold::multigpu {
namespace {

template <class T>
__global__ void fill_shard(T* out, uint64_t count, uint64_t seed_of_shard, int rank) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    out[i] = shard_value<T>(seed_of_shard, rank, i);
  }
}

template <ReduceOp Op> struct op_of;
template <> struct op_of<ReduceOp::sum> { using type = warpfold::plus; };
template <> struct op_of<ReduceOp::max> { using type = warpfold::maximum; };

// int32 sums widen to int64 so that 2^34 elements per GPU on any number of GPUs stay exact.
template <class T, ReduceOp Op>
using accumulator_t = std::conditional_t<std::is_same_v<T, int32_t> && Op == ReduceOp::sum, int64_t, T>;

template <class T, ReduceOp Op>
class pipeline final : public RankPipeline {
  using Acc = accumulator_t<T, Op>;
  using op_t = typename op_of<Op>::type;

 public:
  pipeline(uint64_t count, uint64_t seed, int rank, ncclComm_t comm, cudaStream_t stream)
      : count_(count), rank_(rank), ranks_(ranks_of(comm)), comm_(comm), stream_(stream), shard_(count), partial_(1),
        gathered_(distributed::gathered_slots<Acc, op_t>(ranks_)), result_(1) {
    if (count > 0) {
      fill_shard<T><<<1024, 256, 0, stream>>>(shard_.get(), count, shard_seed(seed, rank), rank);
      WARPFOLD_CUDA_CHECK(cudaGetLastError());
    }
    WARPFOLD_CUDA_CHECK(reduce(nullptr));
    temp_ = harness::fresh_temp_storage(temp_bytes_, stream_);
  }

  void enqueue_local() override { WARPFOLD_CUDA_CHECK(reduce(temp_.get())); }

  void enqueue_combine() override {
    WARPFOLD_NCCL_CHECK(
        distributed::combine_allreduce(gathered_.get(), partial_.get(), result_.get(), op_t{}, comm_, stream_));
  }

  void enqueue_finish() override {
    WARPFOLD_CUDA_CHECK(distributed::finish_combine(gathered_.get(), result_.get(), op_t{}, ranks_, stream_));
  }

  void poison() override {
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(partial_.get(), 0xff, sizeof(Acc), stream_));
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(result_.get(), 0xff, sizeof(Acc), stream_));
  }

  Scalar partial() override { return read(partial_.get()); }
  Scalar result() override { return read(result_.get()); }

 private:
  cudaError_t reduce(void* temp) {
    // init = the identity: the report's reference is the data alone.
    return distributed::reduce_shard(temp, temp_bytes_, static_cast<const T*>(shard_.get()), partial_.get(), count_,
                                     op_t{}, distributed::identity_of<Acc, op_t>(), rank_, stream_);
  }

  static int ranks_of(ncclComm_t comm) {
    int ranks = 0;
    WARPFOLD_NCCL_CHECK(ncclCommCount(comm, &ranks));
    return ranks;
  }

  Scalar read(const Acc* d_value) {
    Acc v{};
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&v, d_value, sizeof(Acc), cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    Scalar s;
    if constexpr (std::is_integral_v<Acc>) s.integer = int64_t(v);
    else s.real = double(v);
    return s;
  }

  uint64_t count_;
  int rank_;
  int ranks_;
  ncclComm_t comm_;
  cudaStream_t stream_;
  harness::DeviceBuffer<T> shard_;
  harness::DeviceBuffer<Acc> partial_;
  harness::DeviceBuffer<Acc> gathered_;  // every rank's partial, where they are gathered (max of floats)
  harness::DeviceBuffer<Acc> result_;
  harness::DeviceBuffer<char> temp_;
  size_t temp_bytes_ = 0;
};

template <class T>
std::unique_ptr<RankPipeline> make_for_type(ReduceOp op, uint64_t count, uint64_t seed, int rank, ncclComm_t comm,
                                            cudaStream_t stream) {
  if (op == ReduceOp::sum) return std::make_unique<pipeline<T, ReduceOp::sum>>(count, seed, rank, comm, stream);
  return std::make_unique<pipeline<T, ReduceOp::max>>(count, seed, rank, comm, stream);
}

}  // namespace

std::unique_ptr<RankPipeline> make_rank_pipeline(ElementType type, ReduceOp op, uint64_t count, uint64_t seed, int rank,
                                                 ncclComm_t comm, cudaStream_t stream) {
  switch (type) {
    case ElementType::int32: return make_for_type<int32_t>(op, count, seed, rank, comm, stream);
    case ElementType::float32: return make_for_type<float>(op, count, seed, rank, comm, stream);
    case ElementType::float64: return make_for_type<double>(op, count, seed, rank, comm, stream);
    case ElementType::int8:
    case ElementType::float16: break;  // not offered by `warpfold multigpu`
  }
  return nullptr;
}

}  // namespace warpfold::multigpu
