#include "cli/ladder_command.hpp"

namespace warpfold::cli {

void add_ladder_options(CLI::App& sub, LadderCommandOptions& o) {
  sub.add_option("--n", o.lab.n, "elements to reduce (e.g. 16777216, 2^24, 2^20+7)")
      ->transform(count_transform())
      ->default_str("2^24");
  add_block_option(sub, o.lab.block);
  add_reps_option(sub, o.lab.reps, "per kernel");
  sub.add_option("--variants", o.variants, "which variants to run")
      ->check(CLI::IsMember({"book", "fixed", "all"}))
      ->capture_default_str();
  // The sweep sets the block size itself: a --block beside it would be ignored, so it is refused.
  sub.add_flag("--block-sweep", o.lab.block_sweep, "time every block size 64..1024 and report the best per kernel")
      ->excludes(sub.get_option("--block"));
  add_seed_option(sub, o.lab.seed, "seed of the random input (default: fresh each run)");
}

lab::LadderOptions resolved_ladder_options(const LadderCommandOptions& o) {
  lab::LadderOptions lab = o.lab;
  lab.variants = o.variants == "book"    ? lab::VariantSelection::book
                 : o.variants == "fixed" ? lab::VariantSelection::fixed
                                         : lab::VariantSelection::all;
  return lab;
}

}  // namespace warpfold::cli
