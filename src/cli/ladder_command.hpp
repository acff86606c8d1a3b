#pragma once
// `warpfold ladder`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/ladder/ladder_run.hpp"

#include <string>

namespace warpfold::cli {

struct LadderCommandOptions {
  lab::LadderOptions lab;
  std::string variants = "all";
};

// Registers the ladder's own options on its command.
void add_ladder_options(CLI::App& sub, LadderCommandOptions& opts);

// The lab's options as parsed: the variants applied.
lab::LadderOptions resolved_ladder_options(const LadderCommandOptions& opts);

}  // namespace warpfold::cli
