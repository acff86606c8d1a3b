#pragma once
// `warpfold multigpu`: the distributed reduce measured in one of its two set-ups.
//   single: this process drives GPUs 0..N-1 (communicators::init_all, group calls);
//   mpi:    this process is one rank of an mpirun job and drives one GPU (communicators::init_rank,
//           the id sent by MPI_Bcast); rank 0 gathers every GPU's numbers and writes the report.

#include "multigpu/multigpu_options.hpp"
#include "report/table.hpp"

#include <string>

namespace warpfold::multigpu {

// Why a run stopped before measuring.
enum class Stop {
  none,
  no_device,      // no CUDA device (exit 3)
  bad_arguments,  // bad arguments, too many GPUs or processes, too little memory (exit 2)
  failure,        // a CUDA, NCCL or MPI failure (exit 1)
};

struct MultigpuOutcome {
  report::Report report;
  bool writes_report = true;  // false on the mpi ranks other than 0: rank 0 reports for all
  bool check_failed = false;  // a partial or a result differed from the CPU's
  Stop stop = Stop::none;
  std::string message;        // the line to print for `stop`, if this process has one to say
};

// Runs options.mode. The single set-up lets bad arguments out as std::invalid_argument and
// failures as exceptions; the mpi set-up returns them as `stop` (every process must agree on
// stopping, or one would wait for the others in NCCL's set-up), and ends the whole job with
// MPI_Abort when a process fails after NCCL started.
MultigpuOutcome run_multigpu(const MultigpuOptions& options);

// Whether this build has the mpi set-up (MPI was found at configure time).
bool mpi_mode_built();

}  // namespace warpfold::multigpu
