#pragma once
#include "cli/command.hpp"
#include "multigpu/multigpu_run.hpp"

#include <string>

namespace warpfold::cli {

struct MultigpuCommandOptions {
  multigpu::MultigpuOptions run;
  std::string mode;  // empty: mpi when started by mpirun, else single
  std::string type = "int32";
  std::string op = "sum";
  OutputOptions output;
};

// Registers `warpfold multigpu` on `app`.
Command add_multigpu_command(CLI::App& app, MultigpuCommandOptions& opts);

// The run options of the parsed command line; the set-up from the environment when --mode was not given.
multigpu::MultigpuOptions resolve_multigpu_options(const MultigpuCommandOptions& opts, const multigpu::EnvLookup& env);

// finish() for this process's part of a run; an mpi rank other than 0 exits as rank 0 does, which
// writes the report and says what failed for all.
int finish_multigpu(const multigpu::MultigpuOutcome& outcome, const OutputOptions& output);

}  // namespace warpfold::cli
