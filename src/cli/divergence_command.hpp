#pragma once
// `warpfold divergence`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/divergence/divergence_run.hpp"

namespace warpfold::cli {

struct DivergenceCommandOptions {
  lab::DivergenceOptions lab;
};

void add_divergence_options(CLI::App& sub, DivergenceCommandOptions& opts);

}  // namespace warpfold::cli
