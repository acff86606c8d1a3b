#pragma once
// warpfold::distributed — reduce and allreduce of data sharded across GPUs, on one host or many.
//
// Each GPU (one NCCL rank) reduces its shard with warpfold::reduce into one device scalar, its
// partial; NCCL then combines the partials: ncclAllReduce leaves the result on every rank,
// ncclReduce on the root only. `init` is folded in once, by rank 0; the other ranks start from the
// operator's identity, so the result is op(init, every element of every shard) for any number of
// GPUs. The accumulator type and operator must be ones NCCL combines (nccl_mapping.hpp); others
// fail to compile with the reason.
//
// One process per GPU (mpirun; communicators::init_rank), with the rank's device current:
//   size_t bytes = 0;
//   distributed::allreduce(nullptr, bytes, d_shard, d_result, n_local, plus{}, 0.0, comm, stream);  // query
//   cudaMalloc(&d_temp, bytes);
//   distributed::allreduce(d_temp, bytes, d_shard, d_result, n_local, plus{}, 0.0, comm, stream);
// (warpfold::reduce's argument order, CUB's: input, output, count, operator, init; then the
// communicator and the stream.)
//
// One process driving every local GPU (communicators::init_all): one local_shard per GPU, then
//   distributed::allreduce_local(shards, plus{}, 0.0);
// which runs every GPU's local reduce, then the NCCL calls in one group (required when one thread
// drives several ranks: NCCL would otherwise wait for ranks that were not yet called).
//
// The phases are public for those who time or overlap them: reduce_shard (CUDA, per rank), then
// combine_allreduce or combine_reduce (NCCL; inside ncclGroupStart/End when one process drives
// several ranks). Everything is asynchronous on the given streams; nothing waits on the host
// except NCCL's own set-up on a communicator's first collective.

#include <warpfold/distributed/communicators.hpp>
#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/distributed/nccl_mapping.hpp>
#include <warpfold/distributed/shard_plan.hpp>
#include <warpfold/error.hpp>
#include <warpfold/reduce.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

namespace warpfold::distributed {

namespace detail {

template <class Acc, class Op>
constexpr void require_nccl_combination() {
  static_assert(nccl_data_type<Acc>::supported,
                "warpfold::distributed: NCCL does not reduce this accumulator type: use int8, uint8, int32, uint32, "
                "int64, uint64, __half, __nv_bfloat16, float or double (the type of init)");
  static_assert(nccl_red_op<Op>::supported,
                "warpfold::distributed: NCCL has no operator for this one: use warpfold::plus, multiplies, minimum or "
                "maximum (bitwise operators, arg_min, arg_max, compensated sums and user functors have no NCCL "
                "equivalent: reduce each shard with warpfold::reduce and gather the partials instead)");
}

inline int comm_rank(ncclComm_t comm) {
  int rank = 0;
  WARPFOLD_NCCL_CHECK(ncclCommUserRank(comm, &rank));
  return rank;
}

// The one-call forms keep the partial in the temp storage, after the local reduce's own bytes.
template <class Acc>
size_t partial_offset(size_t reduce_bytes) {
  return (reduce_bytes + alignof(Acc) - 1) / alignof(Acc) * alignof(Acc);
}

// Restores the calling thread's current device, which the one-process form changes per GPU.
class current_device_guard {
 public:
  current_device_guard() { WARPFOLD_CUDA_CHECK(cudaGetDevice(&device_)); }
  ~current_device_guard() { cudaSetDevice(device_); }
  current_device_guard(const current_device_guard&) = delete;
  current_device_guard& operator=(const current_device_guard&) = delete;

 private:
  int device_ = 0;
};

}  // namespace detail

// --- phases ----------------------------------------------------------------------------------

// Phase 1, on the rank's device: *d_partial = this shard's reduction (rank 0 folds in init, the
// others start from the identity). Same temp-storage protocol and errors as warpfold::reduce.
template <class T, class Acc, class Op>
cudaError_t reduce_shard(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_partial, uint64_t count, Op op,
                         Acc init, int rank, cudaStream_t stream = 0) {
  detail::require_nccl_combination<Acc, Op>();
  return warpfold::reduce(d_temp, temp_bytes, d_shard, d_partial, count, op, rank == 0 ? init : identity_of<Acc, Op>(),
                          stream);
}

// Phase 2: *d_result = op over every rank's *d_partial, on every rank.
template <class Acc, class Op>
ncclResult_t combine_allreduce(const Acc* d_partial, Acc* d_result, Op, ncclComm_t comm, cudaStream_t stream = 0) {
  detail::require_nccl_combination<Acc, Op>();
  return ncclAllReduce(d_partial, d_result, 1, nccl_data_type<Acc>::value, nccl_red_op<Op>::value, comm, stream);
}

// Phase 2, to one rank: *d_result = op over every rank's *d_partial, on `root` only (d_result is
// not touched elsewhere and may be null there).
template <class Acc, class Op>
ncclResult_t combine_reduce(const Acc* d_partial, Acc* d_result, Op, int root, ncclComm_t comm,
                            cudaStream_t stream = 0) {
  detail::require_nccl_combination<Acc, Op>();
  return ncclReduce(d_partial, d_result, 1, nccl_data_type<Acc>::value, nccl_red_op<Op>::value, root, comm, stream);
}

// --- one process per GPU ----------------------------------------------------------------------

namespace detail {
// Both phases for this process's rank, `combine(partial)` being the NCCL call.
template <class T, class Acc, class Op, class Combine>
void reduce_then_combine(void* d_temp, size_t& temp_bytes, const T* d_shard, uint64_t count, Op op, Acc init,
                         ncclComm_t comm, cudaStream_t stream, Combine combine) {
  size_t reduce_bytes = 0;
  WARPFOLD_CUDA_CHECK(warpfold::reduce(nullptr, reduce_bytes, d_shard, static_cast<Acc*>(nullptr), count, op, init, stream));
  const size_t offset = partial_offset<Acc>(reduce_bytes);
  if (d_temp == nullptr) {
    temp_bytes = offset + sizeof(Acc);
    return;
  }
  if (temp_bytes < offset + sizeof(Acc)) {
    throw cuda_error(cudaErrorInvalidValue, "warpfold::distributed: temp storage of " + std::to_string(temp_bytes) +
                                                " bytes is too small; the query asked for " +
                                                std::to_string(offset + sizeof(Acc)));
  }
  Acc* partial = reinterpret_cast<Acc*>(static_cast<char*>(d_temp) + offset);
  WARPFOLD_CUDA_CHECK(reduce_shard(d_temp, reduce_bytes, d_shard, partial, count, op, init, comm_rank(comm), stream));
  WARPFOLD_NCCL_CHECK(combine(static_cast<const Acc*>(partial)));
}
}  // namespace detail

// *d_result on every rank = op(init, all elements of all shards). Called by every rank of `comm`,
// with the rank's device current; d_temp == nullptr only sets temp_bytes. Throws cuda_error or
// nccl_error.
template <class T, class Acc, class Op>
void allreduce(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_result, uint64_t count, Op op, Acc init,
               ncclComm_t comm, cudaStream_t stream = 0) {
  detail::reduce_then_combine(d_temp, temp_bytes, d_shard, count, op, init, comm, stream,
                              [&](const Acc* partial) { return combine_allreduce(partial, d_result, op, comm, stream); });
}

// The same, with the result on `root` only.
template <class T, class Acc, class Op>
void reduce_to_root(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_result, uint64_t count, Op op,
                    Acc init, int root, ncclComm_t comm, cudaStream_t stream = 0) {
  detail::reduce_then_combine(d_temp, temp_bytes, d_shard, count, op, init, comm, stream, [&](const Acc* partial) {
    return combine_reduce(partial, d_result, op, root, comm, stream);
  });
}

// --- one process, every local GPU ---------------------------------------------------------------

// One GPU's part in the one-process set-up. Every pointer is memory of `device`.
template <class T, class Acc>
struct local_shard {
  int device = 0;            // the communicator's device
  const T* data = nullptr;   // the shard
  uint64_t count = 0;
  Acc* result = nullptr;     // receives the combined result (allreduce_local: on every GPU)
  void* temp = nullptr;      // temp_bytes_for<T, Acc, Op>(device) bytes
  size_t temp_bytes = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = 0;   // a stream of `device`
};

// The temp storage one local_shard needs on `device`.
template <class T, class Acc, class Op>
size_t temp_bytes_for(int device) {
  detail::current_device_guard keep;
  WARPFOLD_CUDA_CHECK(cudaSetDevice(device));
  size_t bytes = 0;
  detail::reduce_then_combine(nullptr, bytes, static_cast<const T*>(nullptr), 0, Op{}, identity_of<Acc, Op>(), nullptr,
                              0, [](const Acc*) { return ncclSuccess; });
  return bytes;
}

namespace detail {
template <class T, class Acc, class Op, class Combine>
void reduce_then_combine_local(const std::vector<local_shard<T, Acc>>& shards, Op op, Acc init, Combine combine) {
  current_device_guard keep;
  std::vector<const Acc*> partials;
  for (const auto& s : shards) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(s.device));
    size_t reduce_bytes = 0;
    WARPFOLD_CUDA_CHECK(warpfold::reduce(nullptr, reduce_bytes, s.data, static_cast<Acc*>(nullptr), s.count, op, init, s.stream));
    const size_t offset = partial_offset<Acc>(reduce_bytes);
    if (s.temp == nullptr || s.temp_bytes < offset + sizeof(Acc)) {
      throw cuda_error(cudaErrorInvalidValue, "warpfold::distributed: the temp storage of the shard on device " +
                                                  std::to_string(s.device) + " is missing or smaller than temp_bytes_for()");
    }
    Acc* partial = reinterpret_cast<Acc*>(static_cast<char*>(s.temp) + offset);
    WARPFOLD_CUDA_CHECK(reduce_shard(s.temp, reduce_bytes, s.data, partial, s.count, op, init, comm_rank(s.comm), s.stream));
    partials.push_back(partial);
  }
  WARPFOLD_NCCL_CHECK(ncclGroupStart());
  ncclResult_t first_failure = ncclSuccess;
  for (size_t i = 0; i < shards.size() && first_failure == ncclSuccess; ++i) first_failure = combine(shards[i], partials[i]);
  const ncclResult_t group_end = ncclGroupEnd();  // always closes the group, also after a failure
  WARPFOLD_NCCL_CHECK(first_failure);
  WARPFOLD_NCCL_CHECK(group_end);
}
}  // namespace detail

// Every shard's result = op(init, all elements of all shards). Throws cuda_error or nccl_error.
template <class T, class Acc, class Op>
void allreduce_local(const std::vector<local_shard<T, Acc>>& shards, Op op, Acc init) {
  detail::reduce_then_combine_local(shards, op, init, [&](const local_shard<T, Acc>& s, const Acc* partial) {
    return combine_allreduce(partial, s.result, op, s.comm, s.stream);
  });
}

// The same, with the result on the shard whose communicator rank is `root` only.
template <class T, class Acc, class Op>
void reduce_to_root_local(const std::vector<local_shard<T, Acc>>& shards, Op op, Acc init, int root) {
  detail::reduce_then_combine_local(shards, op, init, [&](const local_shard<T, Acc>& s, const Acc* partial) {
    return combine_reduce(partial, s.result, op, root, s.comm, s.stream);
  });
}

}  // namespace warpfold::distributed
