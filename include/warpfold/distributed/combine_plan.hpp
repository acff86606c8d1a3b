#pragma once
// The arithmetic of the combine, free of NCCL calls and kernels: how many partials a rank
// gathers, where its partial and the gathered partials lie in its temp storage, and the fold of
// gathered partials in rank order that runs on the device (and on the host in the tests).

#include <warpfold/distributed/nccl_mapping.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpfold::distributed {

// The slots of gathered partials a rank of `ranks` needs: one per rank where the partials are
// gathered and folded, none where NCCL reduces them.
template <class Acc, class Op>
constexpr size_t gathered_slots(int ranks) {
  return combine_path_v<Acc, Op> == combine_path::gathered_fold && ranks > 0 ? size_t(ranks) : 0;
}

// One rank's temp storage in the one-call forms: the local reduce's own bytes, then its partial,
// then the gathered partials (none on NCCL's path). Offsets are from the start of the storage.
struct rank_temp_layout {
  size_t partial_offset = 0;   // the first multiple of the partial's alignment after the reduce's bytes
  size_t gathered_offset = 0;  // just past the partial
  size_t bytes = 0;            // just past the last gathered slot: what the query reports
};

// The layout for a local reduce of `reduce_bytes`, partials of `partial_size` bytes aligned to
// `partial_align` (a power of two that divides the size, as for every C++ type) and `slots`
// gathered partials.
constexpr rank_temp_layout layout_rank_temp(size_t reduce_bytes, size_t partial_size, size_t partial_align,
                                            size_t slots) {
  rank_temp_layout l;
  l.partial_offset = (reduce_bytes + partial_align - 1) / partial_align * partial_align;
  l.gathered_offset = l.partial_offset + partial_size;
  l.bytes = l.gathered_offset + slots * partial_size;
  return l;
}

// ((p0 op p1) op p2) ... over `ranks` partials (at least one), in rank order: every rank that
// folds the same gathered partials gets the same bits.
template <class P, class Op>
__host__ __device__ P fold_in_rank_order(const P* partials, int ranks, Op op) {
  P acc = partials[0];
  for (int r = 1; r < ranks; ++r) acc = op(acc, partials[r]);
  return acc;
}

}  // namespace warpfold::distributed
