// Stands in for the mpi set-up in a build without MPI.
#include "multigpu/mpi_run.hpp"

namespace warpfold::multigpu {

using harness::Stop;

bool mpi_mode_built() { return false; }

MultigpuOutcome run_mpi(const MultigpuOptions&) {
  MultigpuOutcome out;
  out.stop = Stop::bad_request;
  out.stop_reason = "this warpfold was built without MPI, so --mode mpi is not available: install MPI (Debian/Ubuntu: "
                    "apt-get install libopenmpi-dev openmpi-bin) and configure again";
  return out;
}

}  // namespace warpfold::multigpu
