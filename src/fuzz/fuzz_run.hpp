#pragma once
// `warpfold fuzz`: random cases against the CPU reference until the time is up.

#include "harness/run_outcome.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace warpfold::fuzz {

// The range of --seconds: long enough for a case, short of running unattended for days.
inline constexpr double kMinFuzzSeconds = 0.1;
inline constexpr double kMaxFuzzSeconds = 86400;
inline constexpr uint64_t kMaxFuzzN = uint64_t(1) << 28;

struct FuzzOptions {
  double seconds = 60;
  std::optional<uint64_t> seed;         // fresh when not given
  uint64_t max_n = uint64_t(1) << 24;   // a case's n depends on it: a replay needs the same
  std::optional<uint64_t> replay;       // run this one case seed only
};

// A run's outcome with its counts: a failed case fails the check; a run that tested nothing stops
// (Stop::failed), for it must not pass.
struct FuzzRunOutcome : harness::RunOutcome {
  uint64_t cases = 0;
  uint64_t failures = 0;
};

// Sets the check and the stop that `out`'s counts call for (the end of run_fuzz).
void judge_counts(FuzzRunOutcome& out);

// Throws std::invalid_argument for seconds outside [kMinFuzzSeconds, kMaxFuzzSeconds] (or not
// finite) or max_n outside 1..2^28.
FuzzRunOutcome run_fuzz(const FuzzOptions& options);

// The command line that replays one case: "warpfold fuzz --max-n N --replay SEED".
std::string replay_command(uint64_t case_seed, uint64_t max_n);

// The seed of case i of a run seeded with `run_seed`.
uint64_t case_seed(uint64_t run_seed, uint64_t i);

}  // namespace warpfold::fuzz
