#include "cli/warps_command.hpp"

#include "cli/grid_command.hpp"

namespace warpfold::cli {

void add_warps_options(CLI::App& sub, WarpsCommandOptions& o) {
  sub.add_option("--blocks", o.blocks,
                 "block shapes, e.g. 80x1,40x2 (default: " + lab::block_shapes_label(lab::seed_eighty_thread_shapes()) + ")")
      ->check(block_shapes_check());
  sub.add_option("--grid", o.lab.blocks, "blocks launched per shape, every one checked")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
}

lab::WarpsOptions resolved_warps_options(const WarpsCommandOptions& o) {
  lab::WarpsOptions lab = o.lab;
  if (!o.blocks.empty()) lab.shapes = lab::parse_block_shapes(o.blocks);
  return lab;
}

}  // namespace warpfold::cli
