#pragma once
#include "cli/command.hpp"
#include "lab/divergence/divergence_run.hpp"

namespace warpfold::cli {

struct DivergenceCommandOptions {
  lab::DivergenceOptions lab;
  OutputOptions output;
  std::string profile_pass;  // hidden --profile-pass FILE (see profile_pass_option.hpp)
};

// Registers `warpfold divergence` on `app`; `opts` receives the parsed values.
Command add_divergence_command(CLI::App& app, DivergenceCommandOptions& opts);

}  // namespace warpfold::cli
