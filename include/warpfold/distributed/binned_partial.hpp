#pragma once
// What each GPU of a distributed reproducible sum hands on: its binned accumulator (ReproBLAS's,
// detail/binned.cuh), not its rounded sum. Accumulators merge exactly, so the merged one, and the
// value it rounds to, are those of one accumulator over all the data on one GPU, bit for bit,
// whatever the split; rounded per-GPU sums would round once more, differently for every split.

#include <warpfold/detail/binned.cuh>

#include <cstdint>

namespace warpfold::distributed::detail {

using warpfold::detail::binned_accumulator;
using warpfold::detail::binned_params;

// One GPU's accumulator, canonical, and the elements it took: the merged carries stay exact up to
// binned_params<F>::capacity elements in all, which only the count over every GPU can tell.
template <class F>
struct binned_partial {
  binned_accumulator<F> acc;
  uint64_t count;
};

// Merges two GPUs' partials (exact: binned_merge); the counts add, saturating.
struct binned_partial_plus {
  template <class F>
  __host__ __device__ binned_partial<F> operator()(const binned_partial<F>& a, const binned_partial<F>& b) const {
    const uint64_t count = a.count > UINT64_MAX - b.count ? UINT64_MAX : a.count + b.count;
    return {warpfold::detail::binned_merge(a.acc, b.acc), count};
  }
};

// The sum of the merged partials, rounded as reproducible_sum rounds it; the canonical NaN past
// the capacity (beyond it the carries could have rounded: no result is better than a wrong one).
struct binned_partial_value {
  template <class F>
  __host__ __device__ F operator()(const binned_partial<F>& p) const {
    if (p.count > binned_params<F>::capacity) return warpfold::detail::binned_canonical_nan<F>();
    return warpfold::detail::binned_value(p.acc);
  }
};

// The form of each GPU's local reduce (reduce_forms.cuh): the elements folded as reproducible_sum
// folds them, the output the canonical accumulator with the shard's count.
template <class F>
struct binned_partial_form : warpfold::detail::binned_sum_form<F> {
  uint64_t count = 0;
  template <class Op, class Acc>
  __host__ __device__ __forceinline__ binned_partial<F> finish(const Op&, const Acc& init, const Acc& total,
                                                               bool has_total) const {
    return {warpfold::detail::binned_canonical(has_total ? total : init), count};
  }
};

}  // namespace warpfold::distributed::detail
