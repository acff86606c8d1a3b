#pragma once
#include "cli/command.hpp"
#include "lab/ladder/ladder_run.hpp"

namespace warpfold::cli {

struct LadderCommandOptions {
  lab::LadderOptions lab;
  std::string variants = "all";
  uint64_t seed = 0;
  OutputOptions output;
};

// Registers `warpfold ladder` on `app`; `opts` receives the parsed values.
Command add_ladder_command(CLI::App& app, LadderCommandOptions& opts);

}  // namespace warpfold::cli
