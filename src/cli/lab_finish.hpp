#pragma once
// The common end of the lab commands: write the report as asked, and turn the outcome into the
// documented exit code.

#include "cli/command.hpp"
#include "harness/run_outcome.hpp"

namespace warpfold::cli {

// kExitCheckFailed when a result was wrong, kExitNoDevice when only the CPU part ran, else kExitOk;
// each non-zero code with one line on stderr saying why.
int finish(const harness::RunOutcome& outcome, const OutputOptions& output);

}  // namespace warpfold::cli
