#include "cli/lab_finish.hpp"

#include <iostream>

namespace warpfold::cli {

int finish(const harness::RunOutcome& outcome, const OutputOptions& output) {
  emit(outcome.report, output);
  if (outcome.check_failed) {
    std::cerr << "warpfold: a kernel's output differed from the CPU's (rows marked WRONG)\n";
    return kExitCheckFailed;
  }
  if (!outcome.gpu_ran) {
    std::cerr << "warpfold: " << outcome.report.meta.value("no_device_reason", std::string("no CUDA device"))
              << ": only the CPU part ran\n";
    return kExitNoDevice;
  }
  return kExitOk;
}

}  // namespace warpfold::cli
