#include "harness/stats.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace warpfold::harness {

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median_of: no values");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no samples");
  TimingStats s;
  s.reps = static_cast<int>(samples_ms.size());
  const auto [lo, hi] = std::minmax_element(samples_ms.begin(), samples_ms.end());
  s.min_ms = *lo;
  s.max_ms = *hi;
  s.median_ms = median_of(std::move(samples_ms));
  return s;
}

RatioInterval per_round_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms, int resamples,
                              uint64_t seed) {
  if (a_ms.empty() || a_ms.size() != b_ms.size()) {
    throw std::invalid_argument("per_round_ratio: two samples of the same, nonzero length expected");
  }
  std::vector<double> ratios(a_ms.size());
  for (size_t i = 0; i < ratios.size(); ++i) ratios[i] = a_ms[i] / b_ms[i];
  RatioInterval r;
  r.median = median_of(ratios);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, ratios.size() - 1);
  std::vector<double> medians(size_t(std::max(resamples, 1)));
  std::vector<double> draw(ratios.size());
  for (double& m : medians) {
    for (double& d : draw) d = ratios[pick(rng)];
    m = median_of(draw);
  }
  std::sort(medians.begin(), medians.end());
  r.low = medians[size_t(0.025 * double(medians.size() - 1))];
  r.high = medians[size_t(0.975 * double(medians.size() - 1))];
  return r;
}

}  // namespace warpfold::harness
