#pragma once
// CSR offsets for the segmented timing programs under bench/: segment lengths laid back to back.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace warpfold_bench {

// CSR offsets of `lengths` in order, the last ones dropped where they would pass `total`.
inline std::vector<int32_t> csr_offsets(const std::vector<uint64_t>& lengths, uint64_t total) {
  std::vector<int32_t> off{0};
  for (uint64_t len : lengths) {
    if (uint64_t(off.back()) + len > total) break;
    off.push_back(int32_t(off.back() + len));
  }
  return off;
}

// Lengths drawn uniformly from [lo, hi] until they reach `total` between them.
inline std::vector<uint64_t> uniform_lengths(uint64_t lo, uint64_t hi, uint64_t total, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> draw(lo, hi);
  std::vector<uint64_t> lengths;
  for (uint64_t sum = 0; sum < total; sum += lengths.back()) lengths.push_back(draw(rng));
  return lengths;
}

inline std::string uniform_name(uint64_t lo, uint64_t hi) {
  return "uniform [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

}  // namespace warpfold_bench
