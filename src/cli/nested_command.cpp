#include "cli/nested_command.hpp"

#include "cli/profile_pass_option.hpp"
#include "cli/seed_check.hpp"
#include "lab/nested/nested_run.hpp"
#include "lab/profile_pass.hpp"

#include <iostream>

namespace warpfold::cli {
namespace {

int no_device_exit(const std::string& reason) {
  std::cerr << "warpfold: " << reason << ": the GPU parts did not run\n";
  return kExitNoDevice;
}

int run_table(NestedCommandOptions& o) {
  o.lab = resolved_nested_options(o);
  if (!o.profile_pass.empty()) {
    return run_profile_pass([&] { return lab::nested_profile_pass(o.lab); }, o.profile_pass);
  }
  const harness::RunOutcome outcome = lab::run_nested(o.lab);
  emit(outcome.report, o.output);
  if (outcome.check_failed) {
    std::cerr << "warpfold: a nested row or the CPU reference was WRONG (see its check)\n";
    return kExitCheckFailed;
  }
  if (!outcome.gpu_ran) return no_device_exit(outcome.report.meta.value("no_device_reason", std::string("no CUDA device")));
  return kExitOk;
}

int run_hello(const NestedCommandOptions& o) {
  const lab::NestedHelloOutcome outcome = lab::run_nested_hello(o.hello);
  if (!outcome.gpu_ran) return no_device_exit(outcome.no_device_reason);
  if (!outcome.ok()) {
    std::cerr << "warpfold: nestedHelloWorld: " << outcome.summary() << "\n";
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

Command add_nested_command(CLI::App& app, NestedCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "nested", "the seed's nested reductions on CUDA Dynamic Parallelism 2: checked, timed, child launches counted");
  sub->require_subcommand(0, 1);
  sub->add_option("--n", o.lab.n, "elements to reduce (e.g. 1048576, 2^20, 2^20+7)")
      ->transform(count_transform())
      ->default_str("2^20");
  sub->add_option("--block", o.lab.block, "threads per block: a power of two from 32 to 1024")
      ->check(block_size_check())
      ->capture_default_str();
  sub->add_option("--reps", o.lab.reps, "timed repetitions per row")->check(CLI::Range(1, 100000))->capture_default_str();
  o.seed_option = sub->add_option("--seed", o.seed, "seed of the random input (default: fresh each run)")->check(seed_check());
  add_output_options(*sub, o.output);
  add_profile_pass_option(*sub, o.profile_pass);

  CLI::App* hello = sub->add_subcommand("hello", "the seed's nestedHelloWorld: each grid prints, then launches one of half the size");
  hello->add_option("--grid", o.hello.grid, "blocks of the top grid")
      ->check(CLI::Range(1u, lab::kHelloMaxGrid))
      ->capture_default_str();
  hello->add_option("--block", o.hello.block, "threads of the top grid's blocks")
      ->check(CLI::Range(1u, lab::kHelloMaxBlock))
      ->capture_default_str();

  // The reduction's options given before `hello` would be silently ignored: refuse them at parse
  // time, before anything runs.
  hello->preparse_callback([sub](std::size_t) {
    for (const CLI::Option* option : sub->get_options()) {
      if (option->count() > 0 && option->get_name() != "--help") {
        throw CLI::ValidationError(option->get_name(), "applies to the nested reduction, not to `nested hello` "
                                                       "(whose options are --grid and --block, after `hello`)");
      }
    }
  });

  o.hello_command = hello;
  return {sub, [&o, hello]() { return hello->parsed() ? run_hello(o) : run_table(o); }};
}

lab::NestedOptions resolved_nested_options(const NestedCommandOptions& o) {
  lab::NestedOptions lab = o.lab;
  if (o.seed_option && o.seed_option->count()) lab.seed = o.seed;
  return lab;
}

}  // namespace warpfold::cli
