#pragma once
// warpfold::distributed — reduce and allreduce of data sharded across GPUs, on one host or many,
// with the result warpfold::reduce gives on one GPU over all the data.
//
// Each GPU (one NCCL rank) reduces its shard with warpfold::reduce into one device scalar, its
// partial; the partials are then combined (distributed/nccl_mapping.hpp says which way, per
// accumulator type and operator):
//  * by NCCL, where its arithmetic is warpfold's: every operator on integers, plus and
//    multiplies on floating-point types: ncclAllReduce leaves the result on every rank,
//    ncclReduce on the root only;
//  * gathered and folded, where it is not: minimum and maximum on floating-point types (NCCL's
//    fmin / fmax let a number beat a NaN; warpfold's operators let a NaN win). ncclAllGather
//    brings every rank's partial to every rank, and one device thread folds them in rank order
//    with warpfold's own operator, so a NaN in any GPU's shard gives NaN, as on one GPU.
// `init` is folded in once, by rank 0; the other ranks start from the operator's identity, so the
// result is op(init, every element of every shard) for any number of GPUs. Other accumulator
// types and operators fail to compile with the reason.
//
// reproducible_sum is warpfold::reproducible_sum over all the shards: each GPU keeps its binned
// accumulator (not its rounded sum), the accumulators are gathered and merged exactly, and the
// result has the bits of warpfold::reproducible_sum over all the data on one GPU, whatever the
// number of GPUs and the split. A float sum takes at most 2^32 - 512 elements over all GPUs
// (ReproBLAS's capacity): the local forms refuse more, the per-process forms give NaN.
//
// One process per GPU (mpirun; communicators::init_rank), with the rank's device current:
//   size_t bytes = 0;
//   distributed::allreduce(nullptr, bytes, d_shard, d_result, n_local, plus{}, 0.0, comm, stream);  // query
//   cudaMalloc(&d_temp, bytes);
//   distributed::allreduce(d_temp, bytes, d_shard, d_result, n_local, plus{}, 0.0, comm, stream);
// (warpfold::reduce's argument order, CUB's: input, output, count, operator, init; then the
// communicator and the stream.) These one-call forms issue their own NCCL call: not inside an
// ncclGroupStart/End of the caller's, where the fold would be enqueued before the gather.
//
// One process driving every local GPU (communicators::init_all): one local_shard per GPU, then
//   distributed::allreduce_local(shards, plus{}, 0.0);
// which runs every GPU's local reduce, then the NCCL calls in one group (required when one thread
// drives several ranks: NCCL would otherwise wait for ranks that were not yet called), then the
// folds where the partials were gathered.
//
// The phases are public for those who time or overlap them: reduce_shard (CUDA, per rank),
// combine_allreduce or combine_reduce (NCCL; inside ncclGroupStart/End when one process drives
// several ranks), then finish_combine (CUDA, after ncclGroupEnd; nothing to do where NCCL reduced
// the partials). Everything is asynchronous on the given streams; nothing waits on the host except
// NCCL's own set-up on a communicator's first collective.

#include <warpfold/distributed/combine_plan.hpp>
#include <warpfold/distributed/communicators.hpp>
#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/distributed/nccl_mapping.hpp>
#include <warpfold/distributed/reduce_steps.cuh>
#include <warpfold/distributed/shard_plan.hpp>
#include <warpfold/error.hpp>
#include <warpfold/reduce.cuh>
#include <warpfold/reproducible.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::distributed {

namespace detail {

template <class Acc, class Op>
constexpr void require_combination() {
  static_assert(nccl_data_type<Acc>::supported,
                "warpfold::distributed: NCCL does not reduce this accumulator type: use int8, uint8, int32, uint32, "
                "int64, uint64, __half, __nv_bfloat16, float or double (the type of init)");
  static_assert(nccl_red_op<Op>::supported,
                "warpfold::distributed: NCCL has no operator for this one: use warpfold::plus, multiplies, minimum or "
                "maximum (bitwise operators, arg_min, arg_max, compensated sums and user functors have no NCCL "
                "equivalent: reduce each shard with warpfold::reduce and gather the partials instead)");
}

// A float sum over every shard of this process past ReproBLAS's capacity is refused here, before
// anything runs; shards of other processes are counted by the fold (NaN).
template <class Shard>
void require_reproducible_capacity(const std::vector<Shard>& shards) {
  using F = std::remove_cv_t<std::remove_pointer_t<decltype(Shard::result)>>;
  uint64_t total = 0;
  for (const Shard& s : shards) total = s.count > UINT64_MAX - total ? UINT64_MAX : total + s.count;
  if (total > binned_params<F>::capacity) {
    throw cuda_error(cudaErrorInvalidValue, "warpfold::distributed::reproducible_sum: " + std::to_string(total) +
                                                " elements in all, more than the " +
                                                std::to_string(binned_params<F>::capacity) +
                                                " a float sum takes (ReproBLAS's capacity)");
  }
}

}  // namespace detail

// --- phases ----------------------------------------------------------------------------------

// Phase 1, on the rank's device: *d_partial = this shard's reduction (rank 0 folds in init, the
// others start from the identity). Same temp-storage protocol and errors as warpfold::reduce.
template <class T, class Acc, class Op>
cudaError_t reduce_shard(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_partial, uint64_t count, Op op,
                         Acc init, int rank, cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  return detail::plain_reduction<Acc, Op>{op, init}.reduce_local(d_temp, temp_bytes, d_shard, d_partial, count, rank,
                                                                 stream);
}

// Phase 2, every rank: where NCCL reduces the partials, *d_result = op over every rank's
// *d_partial (d_gathered is not used and may be null); where they are gathered,
// d_gathered[0, ranks) = every rank's *d_partial, in rank order (gathered_slots<Acc, Op>(ranks)
// slots), and d_result is written by phase 3.
template <class Acc, class Op>
ncclResult_t combine_allreduce(Acc* d_gathered, const Acc* d_partial, Acc* d_result, Op op, ncclComm_t comm,
                               cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  return detail::issue_combine(detail::plain_reduction<Acc, Op>{op, Acc{}}, d_partial, d_gathered, d_result,
                               detail::to_every_rank, comm, stream);
}

// Phase 2, to one rank: the same with the result on `root` only (d_result is not touched
// elsewhere and may be null there; the gathered partials reach every rank).
template <class Acc, class Op>
ncclResult_t combine_reduce(Acc* d_gathered, const Acc* d_partial, Acc* d_result, Op op, int root, ncclComm_t comm,
                            cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  return detail::issue_combine(detail::plain_reduction<Acc, Op>{op, Acc{}}, d_partial, d_gathered, d_result,
                               detail::to_root(root), comm, stream);
}

// Phase 3, where the result is wanted (every rank after combine_allreduce, the root after
// combine_reduce), once phase 2 is enqueued (after ncclGroupEnd in a group): where the partials
// were gathered, *d_result = the fold of d_gathered[0, ranks) in rank order with op; elsewhere
// nothing. cudaErrorInvalidValue for a null pointer or ranks < 1 on the gathered path.
template <class Acc, class Op>
cudaError_t finish_combine(const Acc* d_gathered, Acc* d_result, Op op, int ranks, cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  return detail::finish_combine(detail::plain_reduction<Acc, Op>{op, Acc{}}, d_gathered, d_result, ranks, stream);
}

// --- one process per GPU ----------------------------------------------------------------------

// *d_result on every rank = op(init, all elements of all shards). Called by every rank of `comm`,
// with the rank's device current; d_temp == nullptr only sets temp_bytes. Throws cuda_error or
// nccl_error.
template <class T, class Acc, class Op>
void allreduce(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_result, uint64_t count, Op op, Acc init,
               ncclComm_t comm, cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  detail::reduce_then_combine(detail::plain_reduction<Acc, Op>{op, init}, d_temp, temp_bytes, d_shard, d_result, count,
                              detail::to_every_rank, comm, stream);
}

// The same, with the result on `root` only.
template <class T, class Acc, class Op>
void reduce_to_root(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_result, uint64_t count, Op op,
                    Acc init, int root, ncclComm_t comm, cudaStream_t stream = 0) {
  detail::require_combination<Acc, Op>();
  detail::reduce_then_combine(detail::plain_reduction<Acc, Op>{op, init}, d_temp, temp_bytes, d_shard, d_result, count,
                              detail::to_root(root), comm, stream);
}

// *d_result on every rank = warpfold::reproducible_sum over all elements of all shards, the same
// bits (float, double, half and bfloat16 elements; reproducible_sum_t<T> results). As allreduce
// otherwise.
template <class T>
void reproducible_sum(void* d_temp, size_t& temp_bytes, const T* d_shard, reproducible_sum_t<T>* d_result,
                      uint64_t count, ncclComm_t comm, cudaStream_t stream = 0) {
  detail::reduce_then_combine(detail::reproducible_reduction<reproducible_sum_t<T>>{}, d_temp, temp_bytes, d_shard,
                              d_result, count, detail::to_every_rank, comm, stream);
}

// The same, with the result on `root` only.
template <class T>
void reproducible_sum_to_root(void* d_temp, size_t& temp_bytes, const T* d_shard, reproducible_sum_t<T>* d_result,
                              uint64_t count, int root, ncclComm_t comm, cudaStream_t stream = 0) {
  detail::reduce_then_combine(detail::reproducible_reduction<reproducible_sum_t<T>>{}, d_temp, temp_bytes, d_shard,
                              d_result, count, detail::to_root(root), comm, stream);
}

// --- one process, every local GPU ---------------------------------------------------------------

// One GPU's part in the one-process set-up. Every pointer is memory of `device`.
template <class T, class Acc>
struct local_shard {
  int device = 0;            // the communicator's device
  const T* data = nullptr;   // the shard
  uint64_t count = 0;
  Acc* result = nullptr;     // receives the combined result (allreduce_local: on every GPU)
  void* temp = nullptr;      // temp_bytes_for<T, Acc, Op>(comm) bytes (reproducible_sum_temp_bytes_for<T>)
  size_t temp_bytes = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = 0;   // a stream of `device`
};

// The temp storage one local_shard of `comm` needs (on the communicator's device; it depends on
// the number of ranks where the partials are gathered).
template <class T, class Acc, class Op>
size_t temp_bytes_for(ncclComm_t comm) {
  detail::require_combination<Acc, Op>();
  return detail::rank_temp_bytes<T>(detail::plain_reduction<Acc, Op>{Op{}, Acc{}}, comm);
}

template <class T>
size_t reproducible_sum_temp_bytes_for(ncclComm_t comm) {
  return detail::rank_temp_bytes<T>(detail::reproducible_reduction<reproducible_sum_t<T>>{}, comm);
}

// Every shard's result = op(init, all elements of all shards). Throws cuda_error or nccl_error.
template <class T, class Acc, class Op>
void allreduce_local(const std::vector<local_shard<T, Acc>>& shards, Op op, Acc init) {
  detail::require_combination<Acc, Op>();
  detail::reduce_then_combine_local(shards, detail::plain_reduction<Acc, Op>{op, init}, detail::to_every_rank);
}

// The same, with the result on the shard whose communicator rank is `root` only.
template <class T, class Acc, class Op>
void reduce_to_root_local(const std::vector<local_shard<T, Acc>>& shards, Op op, Acc init, int root) {
  detail::require_combination<Acc, Op>();
  detail::reduce_then_combine_local(shards, detail::plain_reduction<Acc, Op>{op, init}, detail::to_root(root));
}

// Every shard's result = warpfold::reproducible_sum over all elements of all shards, the same bits.
template <class T>
void reproducible_sum_local(const std::vector<local_shard<T, reproducible_sum_t<T>>>& shards) {
  detail::require_reproducible_capacity(shards);
  detail::reduce_then_combine_local(shards, detail::reproducible_reduction<reproducible_sum_t<T>>{},
                                    detail::to_every_rank);
}

// The same, with the result on the shard whose communicator rank is `root` only.
template <class T>
void reproducible_sum_to_root_local(const std::vector<local_shard<T, reproducible_sum_t<T>>>& shards, int root) {
  detail::require_reproducible_capacity(shards);
  detail::reduce_then_combine_local(shards, detail::reproducible_reduction<reproducible_sum_t<T>>{},
                                    detail::to_root(root));
}

}  // namespace warpfold::distributed
