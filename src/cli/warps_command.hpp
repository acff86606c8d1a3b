#pragma once
// `warpfold warps`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/warp_partition/warps_run.hpp"

#include <string>

namespace warpfold::cli {

struct WarpsCommandOptions {
  lab::WarpsOptions lab;
  std::string blocks;  // empty: the seed's 80 threads as 80x1, 40x2 and 16x5
};

void add_warps_options(CLI::App& sub, WarpsCommandOptions& opts);

// The lab's options as parsed: the shapes applied.
lab::WarpsOptions resolved_warps_options(const WarpsCommandOptions& opts);

}  // namespace warpfold::cli
