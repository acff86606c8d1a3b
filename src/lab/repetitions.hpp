#pragma once
// The repetition counts every timed lab experiment takes, checked alike.

#include <stdexcept>

namespace warpfold::lab {

// Throws std::invalid_argument when there is nothing to time (reps < 1) or warm-up is negative.
inline void validate_repetitions(int reps, int warmup) {
  if (reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (warmup < 0) throw std::invalid_argument("warmup must not be negative");
}

}  // namespace warpfold::lab
