#include "cli/nested_command.hpp"

#include "cli/finish.hpp"
#include "lab/nested/nested_run.hpp"

namespace warpfold::cli {

void add_nested_options(CLI::App& sub, NestedCommandOptions& o) {
  sub.require_subcommand(0, 1);
  sub.add_option("--n", o.lab.n, "elements to reduce (e.g. 1048576, 2^20, 2^20+7)")
      ->transform(count_transform())
      ->default_str("2^20");
  add_block_option(sub, o.lab.block);
  add_reps_option(sub, o.lab.reps, "per row");
  add_seed_option(sub, o.lab.seed, "seed of the random input (default: fresh each run)");

  CLI::App* hello = sub.add_subcommand("hello", "the seed's nestedHelloWorld: each grid prints, then launches one of half the size");
  hello->add_option("--grid", o.hello.grid, "blocks of the top grid")
      ->check(CLI::Range(1u, lab::kHelloMaxGrid))
      ->capture_default_str();
  hello->add_option("--block", o.hello.block, "threads of the top grid's blocks")
      ->check(CLI::Range(1u, lab::kHelloMaxBlock))
      ->capture_default_str();
  // The reduction's options given before `hello` would be silently ignored: refuse them at parse
  // time, before anything runs.
  CLI::App* table = &sub;
  hello->preparse_callback([table](std::size_t) {
    for (const CLI::Option* option : table->get_options()) {
      if (option->count() > 0 && option->get_name() != "--help") {
        throw CLI::ValidationError(option->get_name(), "applies to the nested reduction, not to `nested hello` "
                                                       "(whose options are --grid and --block, after `hello`)");
      }
    }
  });
  o.hello_command = hello;
}

int run_nested_hello_command(const NestedCommandOptions& o) {
  const lab::NestedHelloOutcome outcome = lab::run_nested_hello(o.hello);
  if (!outcome.gpu_ran) return no_device_exit(outcome.no_device_reason);
  if (!outcome.ok()) return check_failed_exit("nestedHelloWorld: " + outcome.summary());
  return kExitOk;
}

}  // namespace warpfold::cli
