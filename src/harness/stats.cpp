#include "harness/stats.hpp"

#include <algorithm>
#include <stdexcept>

namespace warpfold::harness {

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples_ms.begin(), samples_ms.end());
  const size_t n = samples_ms.size();
  TimingStats s;
  s.reps = static_cast<int>(n);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  return s;
}

}  // namespace warpfold::harness
