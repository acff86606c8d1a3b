#pragma once
// What a measuring run hands back to its command: the report, whether the GPU part ran, and
// whether a result that must be exact was wrong (the command turns these into its exit code).

#include "report/table.hpp"

namespace warpfold::harness {

struct RunOutcome {
  report::Report report;
  bool gpu_ran = false;       // false: no CUDA device, only the CPU part ran
  bool check_failed = false;  // a result that must be exact (a GPU's or a CPU reference's) was wrong
};

}  // namespace warpfold::harness
