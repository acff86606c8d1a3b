#pragma once
// `warpfold fuzz`: random cases against the CPU reference until the time is up.

#include "report/table.hpp"

#include <cstdint>
#include <optional>

namespace warpfold::fuzz {

struct FuzzOptions {
  double seconds = 60;
  uint64_t seed = 0;                    // 0: fresh
  uint64_t max_n = uint64_t(1) << 24;
  std::optional<uint64_t> replay;       // run this one case seed only
};

struct FuzzRunOutcome {
  report::Report report;
  bool gpu_ran = false;
  uint64_t cases = 0;
  uint64_t failures = 0;
};

// Throws std::invalid_argument for seconds ≤ 0 or max_n outside 1..2^28.
FuzzRunOutcome run_fuzz(const FuzzOptions& options);

// The seed of case i of a run seeded with `run_seed`.
uint64_t case_seed(uint64_t run_seed, uint64_t i);

}  // namespace warpfold::fuzz
