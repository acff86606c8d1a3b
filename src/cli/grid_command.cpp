#include "cli/grid_command.hpp"

#include "cli/lab_finish.hpp"
#include "cli/profile_pass_option.hpp"
#include "cli/seed_check.hpp"
#include "lab/profile_pass.hpp"

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

Command add_grid_command(CLI::App& app, GridCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "grid", "grid and block shapes: the book's sumMatrixOnGPU2D over block shapes, checked and timed");
  sub->add_option("--nx", o.lab.nx, "matrix width (e.g. 16384, 2^14)")->transform(count_transform())->default_str("2^14");
  sub->add_option("--ny", o.lab.ny, "matrix height")->transform(count_transform())->default_str("2^14");
  sub->add_option("--blocks", o.blocks, "block shapes, e.g. 32x32,64x2 (default: the book's 15 shapes)")
      ->check(block_shapes_check());
  add_reps_option(*sub, o.lab.reps, "per shape");
  o.seed_option =
      sub->add_option("--seed", o.seed, "seed of the random matrices (default: fresh each run)")->check(seed_check());
  add_output_options(*sub, o.output);
  add_profile_pass_option(*sub, o.profile_pass);
  return {sub, [&o]() {
            o.lab = resolved_grid_options(o);
            if (!o.profile_pass.empty()) {
              return run_profile_pass([&] { return lab::grid_profile_pass(o.lab); }, o.profile_pass);
            }
            return finish(lab::run_grid(o.lab), o.output);
          }};
}

lab::GridOptions resolved_grid_options(const GridCommandOptions& o) {
  lab::GridOptions lab = o.lab;
  if (!o.blocks.empty()) lab.shapes = lab::parse_block_shapes(o.blocks);
  if (o.seed_option && o.seed_option->count()) lab.seed = o.seed;
  return lab;
}

}  // namespace warpfold::cli
