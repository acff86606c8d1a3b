#pragma once
// `warpfold multigpu`: the distributed reduce measured in one of its two set-ups.
//   single: this process drives GPUs 0..N-1 (communicators::init_all, group calls);
//   mpi:    this process is one rank of an mpirun job and drives one GPU (communicators::init_rank,
//           the id sent by MPI_Bcast); rank 0 gathers every GPU's numbers and writes the report.

#include "harness/run_outcome.hpp"
#include "multigpu/multigpu_options.hpp"

#include <string>

namespace warpfold::multigpu {

// A run's outcome; its stop says why it stopped before measuring: no CUDA device, bad arguments
// (too many GPUs or processes, too little memory included), or a CUDA, NCCL or MPI failure.
struct MultigpuOutcome : harness::RunOutcome {
  bool writes_report = true;  // false on the mpi ranks other than 0: rank 0 reports and speaks for all
};

// Runs options.mode. The single set-up lets bad arguments out as std::invalid_argument and
// failures as exceptions; the mpi set-up returns them as its stop (every process must agree on
// stopping, or one would wait for the others in NCCL's set-up), and ends the whole job with
// MPI_Abort when a process fails after NCCL started.
MultigpuOutcome run_multigpu(const MultigpuOptions& options);

// Whether this build has the mpi set-up (MPI was found at configure time).
bool mpi_mode_built();

}  // namespace warpfold::multigpu
