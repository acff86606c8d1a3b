#pragma once
#include "cli/command.hpp"
#include "lab/ladder/ladder_run.hpp"

namespace warpfold::cli {

struct LadderCommandOptions {
  lab::LadderOptions lab;
  std::string variants = "all";
  uint64_t seed = 0;
  OutputOptions output;
  const CLI::Option* seed_option = nullptr;  // set on registration: whether --seed was given
  std::string profile_pass;                  // hidden --profile-pass FILE (see profile_pass_option.hpp)
};

// Registers `warpfold ladder` on `app`; `opts` receives the parsed values.
Command add_ladder_command(CLI::App& app, LadderCommandOptions& opts);

// The lab's options as parsed: variants and seed applied.
lab::LadderOptions resolved_ladder_options(const LadderCommandOptions& opts);

}  // namespace warpfold::cli
