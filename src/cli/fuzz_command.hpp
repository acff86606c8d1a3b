#pragma once
#include "cli/command.hpp"
#include "fuzz/fuzz_run.hpp"

namespace warpfold::cli {

struct FuzzCommandOptions {
  fuzz::FuzzOptions fuzz;
  OutputOptions output;
};

// Registers `warpfold fuzz` on `app`.
Command add_fuzz_command(CLI::App& app, FuzzCommandOptions& opts);

// The exit code of a finished run, with its one line on stderr when it is not 0: no device, no case
// run (a run that tested nothing must not pass), or failed cases.
int fuzz_exit_code(const fuzz::FuzzRunOutcome& outcome);

}  // namespace warpfold::cli
