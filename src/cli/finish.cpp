#include "cli/finish.hpp"

#include "harness/run_context.hpp"

#include <iostream>

namespace warpfold::cli {

std::string no_device_reason(const harness::RunOutcome& outcome) {
  return outcome.report.meta.value("no_device_reason", std::string("no CUDA device"));
}

int no_device_exit(const std::string& reason) {
  std::cerr << "warpfold: " << harness::no_device_message(reason) << "\n";
  return kExitNoDevice;
}

int check_failed_exit() {
  std::cerr << "warpfold: a result that must be exact was WRONG (see the check column)\n";
  return kExitCheckFailed;
}

int finish(const harness::RunOutcome& outcome, const OutputOptions& output) {
  emit(outcome.report, output);
  if (outcome.check_failed) return check_failed_exit();
  if (!outcome.gpu_ran) return no_device_exit(no_device_reason(outcome));
  return kExitOk;
}

}  // namespace warpfold::cli
