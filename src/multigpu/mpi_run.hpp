#pragma once
// The mpi set-up, built where MPI was found (mpi_run.cpp), else a stand-in that says how to get it
// (mpi_unavailable.cpp).

#include "multigpu/multigpu_run.hpp"

namespace warpfold::multigpu {

MultigpuOutcome run_mpi(const MultigpuOptions& options);

}  // namespace warpfold::multigpu
