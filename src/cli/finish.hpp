#pragma once
// The end every command shares: the report written as asked, and the documented exit code its
// outcome calls for, with one line on stderr for each code that is not 0. A run's outcome, a stop
// and an exception all end here, so each code is said the same way by every command.

#include "cli/command.hpp"
#include "harness/run_outcome.hpp"

#include <string>

namespace warpfold::cli {

// The exit code of a stop (kExitOk for Stop::none).
int exit_code(harness::Stop stop);

// The exit code of an outcome, in this order: its stop's, kExitCheckFailed when a result that
// must be exact was wrong, kExitNoDevice when only the CPU part ran, else kExitOk.
int exit_code(const harness::RunOutcome& outcome);

// Writes the report (unless the run stopped first), says why on stderr when the exit code is not
// 0, and returns exit_code(outcome).
int finish(const harness::RunOutcome& outcome, const OutputOptions& output);

// Runs `command`, turning what it throws into its exit code, with the line that says why:
// harness::RunStopped its stop's code, std::invalid_argument kExitUsageError, anything else
// kExitRuntimeError.
int run_command(const Command& command);

// exit_code(stop), after `reason` on stderr (nothing when it is empty).
int stop_exit(harness::Stop stop, const std::string& reason);

// kExitNoDevice, after the no-device line (harness::no_device_message) on stderr.
int no_device_exit(const std::string& reason);

// kExitCheckFailed, after `what` was wrong on stderr (empty: a result in the check column).
int check_failed_exit(const std::string& what = "");

}  // namespace warpfold::cli
