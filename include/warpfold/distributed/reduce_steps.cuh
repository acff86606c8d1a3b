#pragma once
// The three steps of every distributed reduce, for any reduction R, and the one-call forms built
// on them (distributed.cuh is the public face):
//   1. R::reduce_local: the rank's shard into its partial (CUDA, on the rank's stream);
//   2. issue_combine: NCCL reduces the partials into the result, or gathers them (NCCL; between
//      ncclGroupStart and ncclGroupEnd where one thread drives several ranks, and then nothing
//      is enqueued before ncclGroupEnd);
//   3. finish_combine: the gathered partials folded in rank order into the result (CUDA, after
//      step 2 is enqueued: after ncclGroupEnd in a group); nothing where NCCL reduced them.
//
// A reduction R says what a partial is (partial_type), what the result is (result_type), how the
// partials combine (path: combine_plan.hpp), how a shard becomes a partial (reduce_local), and on
// the gathered path the fold's operator (fold_op) and what turns the folded partial into the
// result (finish).

#include <warpfold/distributed/binned_partial.hpp>
#include <warpfold/distributed/combine_plan.hpp>
#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/distributed/nccl_mapping.hpp>
#include <warpfold/error.hpp>
#include <warpfold/reduce.cuh>
#include <warpfold/reproducible.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace warpfold::distributed::detail {

inline int comm_rank(ncclComm_t comm) {
  int rank = 0;
  WARPFOLD_NCCL_CHECK(ncclCommUserRank(comm, &rank));
  return rank;
}

inline int comm_size(ncclComm_t comm) {
  int ranks = 0;
  WARPFOLD_NCCL_CHECK(ncclCommCount(comm, &ranks));
  return ranks;
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

// Where the result goes: every rank (all-reduce) or the root alone.
struct result_target {
  bool every_rank = true;
  int root = 0;
  bool wanted_on(int rank) const { return every_rank || rank == root; }
};
inline constexpr result_target to_every_rank{true, 0};
constexpr result_target to_root(int root) { return {false, root}; }

// --- the reductions ---------------------------------------------------------------------------

// warpfold::reduce with Op on every shard: rank 0 folds in init, the others start from the
// operator's identity, so init counts once whatever the number of GPUs.
template <class Acc, class Op>
struct plain_reduction {
  using partial_type = Acc;
  using result_type = Acc;
  using op_type = Op;
  static constexpr combine_path path = combine_path_v<Acc, Op>;
  Op op;
  Acc init;

  template <class T>
  cudaError_t reduce_local(void* d_temp, size_t& temp_bytes, const T* d_shard, Acc* d_partial, uint64_t count, int rank,
                           cudaStream_t stream) const {
    return warpfold::reduce(d_temp, temp_bytes, d_shard, d_partial, count, op,
                            rank == 0 ? init : identity_of<Acc, Op>(), stream);
  }
  Op fold_op() const { return op; }
  warpfold::identity finish() const { return {}; }
};

// warpfold::reproducible_sum's binned accumulators, one per shard, merged exactly.
template <class F>
struct reproducible_reduction {
  using partial_type = binned_partial<F>;
  using result_type = F;
  static constexpr combine_path path = combine_path::gathered_fold;

  template <class T>
  cudaError_t reduce_local(void* d_temp, size_t& temp_bytes, const T* d_shard, binned_partial<F>* d_partial,
                           uint64_t count, int, cudaStream_t stream) const {
    return warpfold::detail::dispatch_binned(d_temp, temp_bytes, d_shard, d_partial, count,
                                             binned_partial_form<F>{{}, count}, stream);
  }
  binned_partial_plus fold_op() const { return {}; }
  binned_partial_value finish() const { return {}; }
};

// --- steps 2 and 3 ----------------------------------------------------------------------------

template <class R>
ncclResult_t issue_combine(const R&, const typename R::partial_type* d_partial, typename R::partial_type* d_gathered,
                           typename R::result_type* d_result, result_target target, ncclComm_t comm,
                           cudaStream_t stream) {
  using P = typename R::partial_type;
  if constexpr (R::path == combine_path::gathered_fold) {
    // As bytes: any trivially copyable partial travels, and every rank receives every partial.
    return ncclAllGather(d_partial, d_gathered, sizeof(P), ncclUint8, comm, stream);
  } else {
    constexpr ncclDataType_t type = nccl_data_type<P>::value;
    constexpr ncclRedOp_t op = nccl_red_op<typename R::op_type>::value;
    if (target.every_rank) return ncclAllReduce(d_partial, d_result, 1, type, op, comm, stream);
    return ncclReduce(d_partial, d_result, 1, type, op, target.root, comm, stream);
  }
}

template <class P, class Out, class Op, class Finish>
__global__ void fold_gathered_partials(const P* gathered, int ranks, Out* out, Op op, Finish finish) {
  *out = finish(fold_in_rank_order(gathered, ranks, op));
}

// One thread folds the `ranks` gathered partials: a few hundred nanoseconds of work behind a launch.
template <class R>
cudaError_t finish_combine(const R& r, const typename R::partial_type* d_gathered, typename R::result_type* d_result,
                           int ranks, cudaStream_t stream) {
  if constexpr (R::path == combine_path::gathered_fold) {
    if (d_gathered == nullptr || d_result == nullptr || ranks < 1) return cudaErrorInvalidValue;
    auto op = r.fold_op();
    auto finish = r.finish();
    constexpr auto kernel = &fold_gathered_partials<typename R::partial_type, typename R::result_type, decltype(op),
                                                    decltype(finish)>;
    void* args[] = {&d_gathered, &ranks, &d_result, &op, &finish};
    // cudaLaunchKernel returns this launch's own error (cudaGetLastError would also take an earlier one).
    return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, stream);
  } else {
    return cudaSuccess;
  }
}

// --- the one-call forms -------------------------------------------------------------------------

// A rank's temp storage on the current device: the local reduce's bytes, the layout, the slots.
struct rank_storage {
  size_t reduce_bytes = 0;
  int slots = 0;
  rank_temp_layout layout;
};

template <class T, class R>
rank_storage plan_rank_storage(const R& r, ncclComm_t comm, cudaStream_t stream) {
  using P = typename R::partial_type;
  rank_storage s;
  WARPFOLD_CUDA_CHECK(r.reduce_local(nullptr, s.reduce_bytes, static_cast<const T*>(nullptr), static_cast<P*>(nullptr),
                                     0, 0, stream));
  s.slots = R::path == combine_path::gathered_fold ? comm_size(comm) : 0;  // NCCL's path needs no communicator here
  s.layout = layout_rank_temp(s.reduce_bytes, sizeof(P), alignof(P), size_t(s.slots));
  return s;
}

template <class P>
P* placed_at(void* d_temp, size_t offset) {
  return reinterpret_cast<P*>(static_cast<char*>(d_temp) + offset);
}

// The temp storage a rank of `comm` needs, on the communicator's device.
template <class T, class R>
size_t rank_temp_bytes(const R& r, ncclComm_t comm) {
  current_device_guard keep;
  int device = 0;
  WARPFOLD_NCCL_CHECK(ncclCommCuDevice(comm, &device));
  WARPFOLD_CUDA_CHECK(cudaSetDevice(device));
  return plan_rank_storage<T>(r, comm, 0).layout.bytes;
}

// The three steps for this process's rank; d_temp == nullptr sets temp_bytes only.
template <class T, class R>
void reduce_then_combine(const R& r, void* d_temp, size_t& temp_bytes, const T* d_shard,
                         typename R::result_type* d_result, uint64_t count, result_target target, ncclComm_t comm,
                         cudaStream_t stream) {
  using P = typename R::partial_type;
  const rank_storage s = plan_rank_storage<T>(r, comm, stream);
  if (d_temp == nullptr) {
    temp_bytes = s.layout.bytes;
    return;
  }
  if (temp_bytes < s.layout.bytes) {
    throw cuda_error(cudaErrorInvalidValue, "warpfold::distributed: temp storage of " + std::to_string(temp_bytes) +
                                                " bytes is too small; the query asked for " +
                                                std::to_string(s.layout.bytes));
  }
  P* partial = placed_at<P>(d_temp, s.layout.partial_offset);
  P* gathered = placed_at<P>(d_temp, s.layout.gathered_offset);
  const int rank = comm_rank(comm);
  size_t reduce_bytes = s.reduce_bytes;
  WARPFOLD_CUDA_CHECK(r.reduce_local(d_temp, reduce_bytes, d_shard, partial, count, rank, stream));
  WARPFOLD_NCCL_CHECK(issue_combine(r, partial, gathered, d_result, target, comm, stream));
  if (target.wanted_on(rank)) WARPFOLD_CUDA_CHECK(finish_combine(r, gathered, d_result, s.slots, stream));
}

// The three steps for every shard of this process (local_shard, distributed.cuh): every local
// reduce, every NCCL call in one group, then every fold.
template <class Shard, class R>
void reduce_then_combine_local(const std::vector<Shard>& shards, const R& r, result_target target) {
  using P = typename R::partial_type;
  using T = std::remove_cv_t<std::remove_pointer_t<decltype(Shard::data)>>;
  struct placed {
    P* partial;
    P* gathered;
    int rank;
    int slots;
  };
  current_device_guard keep;
  std::vector<placed> at;
  for (const Shard& s : shards) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(s.device));
    const rank_storage st = plan_rank_storage<T>(r, s.comm, s.stream);
    if (s.temp == nullptr || s.temp_bytes < st.layout.bytes) {
      throw cuda_error(cudaErrorInvalidValue, "warpfold::distributed: the temp storage of the shard on device " +
                                                  std::to_string(s.device) +
                                                  " is missing or smaller than temp_bytes_for()");
    }
    const placed p{placed_at<P>(s.temp, st.layout.partial_offset), placed_at<P>(s.temp, st.layout.gathered_offset),
                   comm_rank(s.comm), st.slots};
    size_t reduce_bytes = st.reduce_bytes;
    WARPFOLD_CUDA_CHECK(r.reduce_local(s.temp, reduce_bytes, s.data, p.partial, s.count, p.rank, s.stream));
    at.push_back(p);
  }
  WARPFOLD_NCCL_CHECK(ncclGroupStart());
  ncclResult_t first_failure = ncclSuccess;
  for (size_t i = 0; i < shards.size() && first_failure == ncclSuccess; ++i) {
    first_failure = issue_combine(r, at[i].partial, at[i].gathered, shards[i].result, target, shards[i].comm,
                                  shards[i].stream);
  }
  const ncclResult_t group_end = ncclGroupEnd();  // always closes the group, also after a failure
  WARPFOLD_NCCL_CHECK(first_failure);
  WARPFOLD_NCCL_CHECK(group_end);
  for (size_t i = 0; i < shards.size(); ++i) {
    if (!target.wanted_on(at[i].rank)) continue;
    WARPFOLD_CUDA_CHECK(cudaSetDevice(shards[i].device));
    WARPFOLD_CUDA_CHECK(finish_combine(r, at[i].gathered, shards[i].result, at[i].slots, shards[i].stream));
  }
}

}  // namespace warpfold::distributed::detail
