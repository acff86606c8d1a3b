#pragma once
// Summary statistics of repeated timings. We report the median (robust to the odd slow repetition)
// with min and max so the spread is visible next to it.

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

}  // namespace warpfold::harness
