#include "cli/divergence_command.hpp"

#include "cli/lab_finish.hpp"
#include "cli/profile_pass_option.hpp"
#include "lab/profile_pass.hpp"

namespace warpfold::cli {

Command add_divergence_command(CLI::App& app, DivergenceCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "divergence", "warp divergence: the book's mathKernel1..4, checked and timed, optimised and with -G side by side");
  sub->add_option("--n", o.lab.n, "threads' worth of output (e.g. 10240000, 2^24); at most 2^30")
      ->transform(count_transform())
      ->default_str("10240000");
  add_block_option(*sub, o.lab.block);
  add_reps_option(*sub, o.lab.reps, "per kernel and build");
  add_output_options(*sub, o.output);
  add_profile_pass_option(*sub, o.profile_pass);
  return {sub, [&o]() {
            if (!o.profile_pass.empty()) {
              return run_profile_pass([&] { return lab::divergence_profile_pass(o.lab); }, o.profile_pass);
            }
            return finish(lab::run_divergence(o.lab), o.output);
          }};
}

}  // namespace warpfold::cli
