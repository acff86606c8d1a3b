#include "cli/ladder_command.hpp"

#include "cli/profile_pass_option.hpp"
#include "cli/seed_check.hpp"
#include "lab/profile_pass.hpp"

#include <iostream>

namespace warpfold::cli {

Command add_ladder_command(CLI::App& app, LadderCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "ladder", "run, check and time every kernel of the reduction ladder (book and fixed variants)");
  sub->add_option("--n", o.lab.n, "elements to reduce (e.g. 16777216, 2^24, 2^20+7)")
      ->transform(count_transform())
      ->default_str("2^24");
  add_block_option(*sub, o.lab.block);
  add_reps_option(*sub, o.lab.reps, "per kernel");
  sub->add_option("--variants", o.variants, "which variants to run")
      ->check(CLI::IsMember({"book", "fixed", "all"}))
      ->capture_default_str();
  // The sweep sets the block size itself: a --block beside it would be ignored, so it is refused.
  sub->add_flag("--block-sweep", o.lab.block_sweep, "time every block size 64..1024 and report the best per kernel")
      ->excludes(sub->get_option("--block"));
  o.seed_option = sub->add_option("--seed", o.seed, "seed of the random input (default: fresh each run)")->check(seed_check());
  add_output_options(*sub, o.output);
  add_profile_pass_option(*sub, o.profile_pass);

  return {sub, [&o]() {
            o.lab = resolved_ladder_options(o);
            if (!o.profile_pass.empty()) {
              return run_profile_pass([&] { return lab::ladder_profile_pass(o.lab); }, o.profile_pass);
            }
            const harness::RunOutcome outcome = lab::run_ladder(o.lab);
            emit(outcome.report, o.output);
            if (outcome.check_failed) {
              std::cerr << "warpfold: a fixed kernel or CPU reference gave a WRONG sum\n";
              return int(kExitCheckFailed);
            }
            if (!outcome.gpu_ran) {
              std::cerr << "warpfold: " << outcome.report.meta.value("no_device_reason", std::string("no CUDA device"))
                        << ": only the CPU rows ran\n";
              return int(kExitNoDevice);
            }
            return int(kExitOk);
          }};
}

lab::LadderOptions resolved_ladder_options(const LadderCommandOptions& o) {
  lab::LadderOptions lab = o.lab;
  lab.variants = o.variants == "book"    ? lab::VariantSelection::book
                 : o.variants == "fixed" ? lab::VariantSelection::fixed
                                         : lab::VariantSelection::all;
  if (o.seed_option && o.seed_option->count()) lab.seed = o.seed;
  return lab;
}

}  // namespace warpfold::cli
