#include "lab/divergence/divergence_model.hpp"

#include <algorithm>
#include <cstdio>

namespace warpfold::lab::divergence {

bool even_thread(int64_t tid, int) { return tid % 2 == 0; }
bool even_warp(int64_t tid, int warp_size) { return (tid / warp_size) % 2 == 0; }
bool never(int64_t, int) { return false; }
bool even_warp_of_32(int64_t tid, int) { return ((tid >> 5) & 1) == 0; }

WarpPaths count_divergent_warps(BranchRule rule, uint64_t threads, int warp_size) {
  WarpPaths p;
  const uint64_t w = uint64_t(warp_size);
  for (uint64_t first = 0; first < threads; first += w) {
    const uint64_t end = std::min(first + w, threads);
    const bool lead = rule(int64_t(first), warp_size);
    bool split = false;
    for (uint64_t t = first + 1; t < end && !split; ++t) split = rule(int64_t(t), warp_size) != lead;
    ++p.warps;
    if (split) ++p.divergent;
  }
  return p;
}

std::string OutputCheck::verdict() const {
  if (checked == 0) return "WRONG: nothing checked";
  if (mismatches == 0) return "ok";
  char buf[160];
  std::snprintf(buf, sizeof buf, "WRONG at tid %lld: expected %g got %g (%llu of %llu values)",
                static_cast<long long>(first_bad), double(expected_at_first), double(got_at_first),
                static_cast<unsigned long long>(mismatches), static_cast<unsigned long long>(checked));
  return buf;
}

OutputCheck check_output(const float* got, uint64_t threads, BranchRule rule, int warp_size) {
  OutputCheck c;
  c.checked = threads;
  for (uint64_t t = 0; t < threads; ++t) {
    const float want = expected_value(rule, int64_t(t), warp_size);
    if (got[t] == want) continue;  // a NaN poison left in place never compares equal
    if (c.mismatches++ == 0) {
      c.first_bad = int64_t(t);
      c.expected_at_first = want;
      c.got_at_first = got[t];
    }
  }
  return c;
}

}  // namespace warpfold::lab::divergence
