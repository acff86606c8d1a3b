#pragma once
// The order in which several timed runs take their turns in one round (time_in_turns).
//
// A run's time depends on what ran just before it (docs/design.md's decision record, row M2): with
// one fixed order every round, each run always follows the same neighbour, and that neighbour's
// effect lands on it alone. So round r takes a permutation of
// its own: over every n! consecutive rounds each of the n! orders comes once, so each run holds
// each position, and directly follows each other run, equally often. The first position changes
// every round, so no run starts a round for a long stretch of time.

#include <cstddef>
#include <numeric>
#include <vector>

namespace warpfold::harness {

// A permutation of 0 … runs - 1 for round `round` (any size_t; rounds n! apart repeat an order).
// The round number, read in a mixed radix whose least significant digit picks the first run (base
// n), the next digit the second (base n - 1), and so on: consecutive rounds begin with different
// runs, and n! consecutive rounds give n! different orders.
inline std::vector<size_t> round_order(size_t runs, size_t round) {
  std::vector<size_t> left(runs);
  std::iota(left.begin(), left.end(), size_t{0});
  std::vector<size_t> order;
  order.reserve(runs);
  for (size_t base = runs; base > 0; --base) {
    const size_t digit = round % base;
    round /= base;
    order.push_back(left[digit]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(digit));
  }
  return order;
}

}  // namespace warpfold::harness
