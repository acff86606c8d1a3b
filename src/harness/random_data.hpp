#pragma once
// Fresh random inputs. Every run draws a new seed unless one is given, and prints it, so a failure
// can be replayed.

#include <cstdint>
#include <random>
#include <vector>

namespace warpfold::harness {

inline uint64_t fresh_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

// Uniform integers in [lo, hi]. The book's data is lo = 0, hi = 255 (rand() & 0xFF).
inline std::vector<int> random_ints(size_t n, uint64_t seed, int lo = 0, int hi = 255) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

}  // namespace warpfold::harness
