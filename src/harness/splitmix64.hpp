#pragma once
// SplitMix64, the generator behind every input the tools draw from a seed (the fuzzer's cases,
// the bench's data, the multi-GPU shards, the tests' bit patterns): fast enough to fill 2^30
// elements in seconds, and the same numbers on the host and the device. Header-only.

#include <cstdint>

#if defined(__CUDACC__)
#define WARPFOLD_HARNESS_HOST_DEVICE __host__ __device__
#else
#define WARPFOLD_HARNESS_HOST_DEVICE
#endif

namespace warpfold::harness {

// SplitMix64's output function: a bijection that scrambles every input bit into every output bit.
WARPFOLD_HARNESS_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The step between two draws: the golden ratio's fraction of 2^64.
inline constexpr uint64_t kSplitMix64Step = 0x9e3779b97f4a7c15ull;

struct splitmix64 {
  uint64_t state;
  WARPFOLD_HARNESS_HOST_DEVICE uint64_t operator()() { return mix64(state += kSplitMix64Step); }
  uint64_t below(uint64_t bound) { return bound ? (*this)() % bound : 0; }
  double unit() { return double((*this)() >> 11) * 0x1.0p-53; }  // [0, 1)
};

}  // namespace warpfold::harness

#undef WARPFOLD_HARNESS_HOST_DEVICE
