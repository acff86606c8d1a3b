#pragma once
// One GPU's part of `warpfold multigpu`, behind a type-erased interface so that the host logic
// (timing, MPI, reports) stays out of the CUDA translation unit that instantiates the reduce for
// each (type, operator): its shard on the device, filled with the shard's values, the local
// reduce (warpfold::distributed::reduce_shard), the NCCL combine (combine_allreduce) and the fold
// of gathered partials (finish_combine).

#include "multigpu/multigpu_options.hpp"
#include "multigpu/scalar.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>

namespace warpfold::multigpu {

class RankPipeline {
 public:
  virtual ~RankPipeline() = default;
  // The local phase: the shard reduced into this GPU's partial.
  virtual void enqueue_local() = 0;
  // The NCCL phase: every GPU's partial combined into this GPU's result. When one process drives
  // several GPUs, call it for all of them between ncclGroupStart and ncclGroupEnd.
  virtual void enqueue_combine() = 0;
  // The rest of the combine, after ncclGroupEnd: the fold of the gathered partials where the
  // operator's are gathered (floating-point max), nothing where NCCL reduced them.
  virtual void enqueue_finish() = 0;
  // Overwrites partial and result with a pattern (all bits set), so that a phase that did not
  // write them shows.
  virtual void poison() = 0;
  // Wait for the stream and read back.
  virtual Scalar partial() = 0;
  virtual Scalar result() = 0;
};

// On the current device: allocates a shard of `count` elements of `type` and fills it with the
// values of shard `rank` for `seed` (shard_values.hpp), plus the reduce's temp storage, partial and
// result. Sums of int32 accumulate in int64 (exact at any size); everything else in its own type.
// Throws warpfold::cuda_error on allocation or launch failure.
std::unique_ptr<RankPipeline> make_rank_pipeline(ElementType type, ReduceOp op, uint64_t count, uint64_t seed, int rank,
                                                 ncclComm_t comm, cudaStream_t stream);

}  // namespace warpfold::multigpu
