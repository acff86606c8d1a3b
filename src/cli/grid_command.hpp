#pragma once
#include "cli/command.hpp"
#include "lab/grid_shape/grid_run.hpp"

namespace warpfold::cli {

struct GridCommandOptions {
  lab::GridOptions lab;
  std::string blocks;  // empty: the seed's shapes
  uint64_t seed = 0;
  OutputOptions output;
};

// Registers `warpfold grid` on `app`; `opts` receives the parsed values.
Command add_grid_command(CLI::App& app, GridCommandOptions& opts);

// CLI11 check: a comma-separated list of WIDTHxHEIGHT block shapes.
CLI::Validator block_shapes_check();

}  // namespace warpfold::cli
