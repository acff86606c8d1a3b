#include "cli/divergence_command.hpp"

namespace warpfold::cli {

void add_divergence_options(CLI::App& sub, DivergenceCommandOptions& o) {
  sub.add_option("--n", o.lab.n, "threads' worth of output (e.g. 10240000, 2^24); at most 2^30")
      ->transform(count_transform())
      ->default_str("10240000");
  add_block_option(sub, o.lab.block);
  add_reps_option(sub, o.lab.reps, "per kernel and build");
}

}  // namespace warpfold::cli
