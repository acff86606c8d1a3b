#pragma once
#include "cli/command.hpp"
#include "fuzz/fuzz_run.hpp"

namespace warpfold::cli {

struct FuzzCommandOptions {
  fuzz::FuzzOptions fuzz;
  OutputOptions output;
};

// Registers `warpfold fuzz` on `app`.
Command add_fuzz_command(CLI::App& app, FuzzCommandOptions& opts);

}  // namespace warpfold::cli
