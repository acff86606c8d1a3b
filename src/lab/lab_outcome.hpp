#pragma once
// What a lab experiment hands back to its command: the report, whether the GPU part ran, and
// whether a result that must be exact was wrong (the command turns these into its exit code).

#include "report/table.hpp"

namespace warpfold::lab {

struct LabOutcome {
  report::Report report;
  bool gpu_ran = false;       // false: no CUDA device, only the CPU part ran
  bool check_failed = false;  // a kernel's output differed from the CPU's
};

}  // namespace warpfold::lab
