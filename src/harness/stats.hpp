#pragma once
// Summary statistics of repeated timings. We report the median (robust to the odd slow repetition)
// with min and max so the spread is visible next to it. Two runs timed round by round are compared
// round by round (per_round_ratio) from their samples in the order taken.

#include <cstdint>
#include <vector>

namespace warpfold::harness {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int reps = 0;
  // (max - min) / median: how far apart the repetitions were.
  double spread() const { return median_ms > 0 ? (max_ms - min_ms) / median_ms : 0; }
};

// Throws std::invalid_argument on an empty sample.
TimingStats summarize(std::vector<double> samples_ms);

// The median of a sample (not empty).
double median_of(std::vector<double> values);

// A ratio of two runs timed in the same rounds: the median of the per-round ratios a_i / b_i and
// its 95% interval by bootstrap (resampling the rounds, `resamples` times, with a fixed seed so
// that the same samples always give the same interval).
struct RatioInterval {
  double median = 0, low = 0, high = 0;
  // The standard for "at least 1.0×": the median is ≥ 1, or, where both runs sit at the memory
  // limit, the interval's low end is ≥ 0.99.
  bool at_least_one(bool both_at_memory_limit) const { return median >= 1.0 || (both_at_memory_limit && low >= 0.99); }
  // Within noise: the interval holds 1.
  bool holds_one() const { return low <= 1.0 && 1.0 <= high; }
};
// Throws std::invalid_argument when the samples are empty or of different lengths.
RatioInterval per_round_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms, int resamples = 2000,
                              uint64_t seed = 0x5eed);

}  // namespace warpfold::harness
