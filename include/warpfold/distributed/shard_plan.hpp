#pragma once
// How n elements split into shards, one per GPU: contiguous ranges whose sizes differ by at most
// one, the larger ones first, so that no GPU waits on another by more than one element's work.
// Shards may be empty (n smaller than the number of GPUs): an empty shard contributes the
// operator's identity.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace warpfold::distributed {

struct shard_extent {
  uint64_t begin = 0;  // first element of the shard in the whole array
  uint64_t count = 0;  // elements in the shard
};

// Shard `index` of `parts`. Throws std::invalid_argument for parts < 1 or index outside [0, parts).
inline shard_extent shard_of(uint64_t n, int parts, int index) {
  if (parts < 1) throw std::invalid_argument("shard_of: parts must be at least 1, not " + std::to_string(parts));
  if (index < 0 || index >= parts) {
    throw std::invalid_argument("shard_of: index " + std::to_string(index) + " is outside [0, " +
                                std::to_string(parts) + ")");
  }
  const uint64_t p = uint64_t(parts), i = uint64_t(index);
  const uint64_t base = n / p, larger = n % p;  // the first `larger` shards hold one more element
  return {i * base + (i < larger ? i : larger), base + (i < larger ? 1 : 0)};
}

}  // namespace warpfold::distributed
