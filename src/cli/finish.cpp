#include "cli/finish.hpp"

#include "harness/run_context.hpp"

#include <warpfold/error.hpp>

#include <iostream>

namespace warpfold::cli {

using harness::Stop;

int exit_code(Stop stop) {
  switch (stop) {
    case Stop::none: return kExitOk;
    case Stop::bad_request: return kExitUsageError;
    case Stop::no_device: return kExitNoDevice;
    case Stop::failed: return kExitRuntimeError;
    case Stop::tool_missing: return kExitToolMissing;
    case Stop::no_counter_permission: return kExitNoCounterPermission;
  }
  return kExitRuntimeError;
}

int exit_code(const harness::RunOutcome& outcome) {
  if (outcome.stop != Stop::none) return exit_code(outcome.stop);
  if (outcome.check_failed) return kExitCheckFailed;
  if (!outcome.gpu_ran) return kExitNoDevice;
  return kExitOk;
}

int stop_exit(Stop stop, const std::string& reason) {
  if (!reason.empty()) std::cerr << "warpfold: " << reason << "\n";
  return exit_code(stop);
}

int no_device_exit(const std::string& reason) {
  std::cerr << "warpfold: " << harness::no_device_message(reason) << "\n";
  return kExitNoDevice;
}

int check_failed_exit(const std::string& what) {
  std::cerr << "warpfold: " << (what.empty() ? "a result that must be exact was WRONG (see the check column)" : what)
            << "\n";
  return kExitCheckFailed;
}

int finish(const harness::RunOutcome& outcome, const OutputOptions& output) {
  if (outcome.stop != Stop::none) return stop_exit(outcome.stop, outcome.stop_reason);
  emit(outcome.report, output);
  if (outcome.check_failed) return check_failed_exit(outcome.wrong);
  if (!outcome.gpu_ran) {
    return no_device_exit(outcome.report.meta.value("no_device_reason", std::string("no CUDA device")));
  }
  return kExitOk;
}

int run_command(const Command& command) {
  try {
    return command.run();
  } catch (const harness::RunStopped& e) {
    return stop_exit(e.kind(), e.what());
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpfold: error: " << e.what() << "\n";
    return kExitUsageError;
  } catch (const warpfold::cuda_error& e) {
    std::cerr << "warpfold: CUDA error: " << e.what() << "\n";
    return kExitRuntimeError;
  } catch (const std::exception& e) {
    std::cerr << "warpfold: error: " << e.what() << "\n";
    return kExitRuntimeError;
  }
}

}  // namespace warpfold::cli
