#pragma once
#include "cli/command.hpp"
#include "multigpu/multigpu_options.hpp"

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

}  // namespace warpfold::cli
