#pragma once
// The data of every GPU's shard as a function of (seed, rank, index): each GPU fills its own shard
// with it, and the CPU recomputes the same values for the reference, so no shard crosses PCIe and
// no host copy of 2^30 elements per GPU is needed. Shared by the CUDA and the host translation
// units, hence host+device functions with integer arithmetic and exact conversions only: the
// host and the GPU produce the same bits.
//
// The values are never all zero, and each rank's range differs, so a result that misses a GPU,
// or takes one GPU's partial for the whole, is visibly wrong (for max as much as for sum):
//   int32:         uniform in [-2^20, 2^20], plus (rank mod 4) · 2^21: below 2^23 in magnitude, so
//                  int64 sums stay exact up to 64 GPUs of 2^34 elements
//   float, double: k · 2^-24 · (1 + (rank mod 64) / 8), k uniform in [1, 2^24]: in (0, 8.9]

#include "harness/splitmix64.hpp"

#include <cstdint>
#include <type_traits>

#ifdef __CUDACC__
#define WARPFOLD_HOST_DEVICE __host__ __device__
#else
#define WARPFOLD_HOST_DEVICE
#endif

namespace warpfold::multigpu {

using harness::mix64;

WARPFOLD_HOST_DEVICE inline uint64_t shard_seed(uint64_t seed, int rank) {
  return mix64(seed ^ (harness::kSplitMix64Step * uint64_t(rank + 1)));
}

WARPFOLD_HOST_DEVICE inline uint64_t shard_bits(uint64_t seed_of_shard, uint64_t index) {
  return mix64(seed_of_shard + harness::kSplitMix64Step * (index + 1));
}

WARPFOLD_HOST_DEVICE inline int32_t int_value(uint64_t bits, int rank) {
  return int32_t(int64_t(bits % ((1u << 21) + 1)) - (1 << 20) + int64_t(rank % 4) * (1 << 21));
}

// Exact in double (24 significant bits times 4); a float shard rounds it to nearest, the same
// conversion on host and device.
WARPFOLD_HOST_DEVICE inline double real_value(uint64_t bits, int rank) {
  const double k = double((bits >> 40) + 1);  // [1, 2^24]
  return k * 0x1.0p-24 * (1.0 + double(rank % 64) / 8.0);
}

template <class T>
WARPFOLD_HOST_DEVICE inline T shard_value(uint64_t seed_of_shard, int rank, uint64_t index) {
  const uint64_t bits = shard_bits(seed_of_shard, index);
  if constexpr (std::is_integral_v<T>) {
    return int_value(bits, rank);
  } else {
    return T(real_value(bits, rank));
  }
}

}  // namespace warpfold::multigpu
