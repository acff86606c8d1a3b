#pragma once
#include "cli/command.hpp"
#include "fuzz/fuzz_run.hpp"

namespace warpfold::cli {

struct FuzzCommandOptions {
  fuzz::FuzzOptions fuzz;
  uint64_t seed = 0;
  uint64_t replay = 0;
  OutputOptions output;
  const CLI::Option* seed_option = nullptr;    // set on registration: whether --seed was given
  const CLI::Option* replay_option = nullptr;  // set on registration: whether --replay was given
};

// Registers `warpfold fuzz` on `app`.
Command add_fuzz_command(CLI::App& app, FuzzCommandOptions& opts);

// The run's options as parsed: seed and replay applied.
fuzz::FuzzOptions resolved_fuzz_options(const FuzzCommandOptions& opts);

// The exit code of a finished run, with its one line on stderr when it is not 0: no device, no case
// run (a run that tested nothing must not pass), or failed cases.
int fuzz_exit_code(const fuzz::FuzzRunOutcome& outcome);

}  // namespace warpfold::cli
