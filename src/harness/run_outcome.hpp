#pragma once
// What a measuring run hands back to its command: the report, whether the GPU part ran, whether a
// result that must be exact was wrong, or why the run stopped before its report. The CLI turns
// these into the documented exit code (cli/finish.hpp), the same way for every command.

#include "report/table.hpp"

#include <stdexcept>
#include <string>

namespace warpfold::harness {

// Why a run stopped before its report. Where processes stop for different reasons (multigpu's mpi
// set-up), the later reason in this order is the one they all give.
enum class Stop {
  none,
  no_device,              // no CUDA device: nothing to run
  bad_request,            // bad arguments or values, a size too large for memory, a name that exists nowhere
  failed,                 // a CUDA, NCCL, MPI or tool failure, or a run that tested nothing
  tool_missing,           // ncu or cuobjdump not found (or not runnable)
  no_counter_permission,  // ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM)
};

// A stop thrown where the run cannot return it (deep in the profiler's tools); what() says why.
class RunStopped : public std::runtime_error {
 public:
  RunStopped(Stop kind, const std::string& why) : std::runtime_error(why), kind_(kind) {}
  Stop kind() const { return kind_; }

 private:
  Stop kind_;
};

struct RunOutcome {
  report::Report report;
  bool gpu_ran = false;       // false: no CUDA device, only the CPU part ran
  bool check_failed = false;  // a result that must be exact (a GPU's or a CPU reference's) was wrong
  std::string wrong;          // with check_failed: what was wrong, in one line (empty: the check column)
  Stop stop = Stop::none;     // not none: the run stopped before its report, which is not written
  std::string stop_reason;    // with stop: why, in one line (empty: another process says it)
};

}  // namespace warpfold::harness
