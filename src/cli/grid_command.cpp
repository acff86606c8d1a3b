#include "cli/grid_command.hpp"

namespace warpfold::cli {

CLI::Validator block_shapes_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          lab::parse_block_shapes(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "SHAPES");
}

void add_grid_options(CLI::App& sub, GridCommandOptions& o) {
  sub.add_option("--nx", o.lab.nx, "matrix width (e.g. 16384, 2^14)")->transform(count_transform())->default_str("2^14");
  sub.add_option("--ny", o.lab.ny, "matrix height")->transform(count_transform())->default_str("2^14");
  sub.add_option("--blocks", o.blocks, "block shapes, e.g. 32x32,64x2 (default: the book's 15 shapes and 5 that are no multiple of 32 threads)")
      ->check(block_shapes_check());
  add_reps_option(sub, o.lab.reps, "per shape");
  add_seed_option(sub, o.lab.seed, "seed of the random matrices (default: fresh each run)");
}

lab::GridOptions resolved_grid_options(const GridCommandOptions& o) {
  lab::GridOptions lab = o.lab;
  if (!o.blocks.empty()) lab.shapes = lab::parse_block_shapes(o.blocks);
  return lab;
}

}  // namespace warpfold::cli
