#pragma once
#include "cli/command.hpp"
#include "lab/grid_shape/grid_run.hpp"

namespace warpfold::cli {

struct GridCommandOptions {
  lab::GridOptions lab;
  std::string blocks;  // empty: the seed's shapes
  uint64_t seed = 0;
  OutputOptions output;
  const CLI::Option* seed_option = nullptr;  // set on registration: whether --seed was given
  std::string profile_pass;                  // hidden --profile-pass FILE (see profile_pass_option.hpp)
};

// Registers `warpfold grid` on `app`; `opts` receives the parsed values.
Command add_grid_command(CLI::App& app, GridCommandOptions& opts);

// The lab's options as parsed: shapes and seed applied.
lab::GridOptions resolved_grid_options(const GridCommandOptions& opts);

// CLI11 check: a comma-separated list of WIDTHxHEIGHT block shapes.
CLI::Validator block_shapes_check();

}  // namespace warpfold::cli
