#pragma once
// `warpfold grid`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/grid_shape/grid_run.hpp"

#include <string>

namespace warpfold::cli {

struct GridCommandOptions {
  lab::GridOptions lab;
  std::string blocks;  // empty: the seed's shapes
};

void add_grid_options(CLI::App& sub, GridCommandOptions& opts);

// The lab's options as parsed: the shapes applied.
lab::GridOptions resolved_grid_options(const GridCommandOptions& opts);

// CLI11 check: a comma-separated list of WIDTHxHEIGHT block shapes.
CLI::Validator block_shapes_check();

}  // namespace warpfold::cli
