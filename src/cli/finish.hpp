#pragma once
// The end every measuring command shares: the report written as asked, and the documented exit
// code its outcome calls for, with one line on stderr for each code that is not 0.

#include "cli/command.hpp"
#include "harness/run_outcome.hpp"

#include <string>

namespace warpfold::cli {

// kExitCheckFailed when a result that must be exact was wrong, kExitNoDevice when only the CPU
// part ran, else kExitOk.
int finish(const harness::RunOutcome& outcome, const OutputOptions& output);

// kExitNoDevice, after the no-device line (harness::no_device_message) on stderr.
int no_device_exit(const std::string& reason);

// kExitCheckFailed, after the line saying a result was WRONG on stderr.
int check_failed_exit();

// Why the outcome's run found no device, as its report records it.
std::string no_device_reason(const harness::RunOutcome& outcome);

}  // namespace warpfold::cli
