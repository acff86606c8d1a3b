#pragma once
// The CPU's answer for one shard, computed from the same value function the GPU fills its shard
// with (shard_values.hpp), on every core: 2^30 elements take a fraction of a second.

#include "multigpu/multigpu_options.hpp"

#include <cstdint>

namespace warpfold::multigpu {

struct ShardReference {
  uint64_t count = 0;
  int64_t int_sum = 0;       // int32 data: the exact sum
  long double real_sum = 0;  // float and double data: summed in long double (64-bit significand)
  long double abs_sum = 0;   // Σ|x|: the scale of a floating-point sum's error bound
  double max_value = 0;      // exact for every element type; -inf for an empty shard
};

// Sum, Σ|x| and maximum of shard `rank` (count elements of `type`, made from `seed`).
ShardReference reference_of_shard(ElementType type, uint64_t count, uint64_t seed, int rank);

// The reference of the union of two shards.
ShardReference combine(const ShardReference& a, const ShardReference& b);

}  // namespace warpfold::multigpu
