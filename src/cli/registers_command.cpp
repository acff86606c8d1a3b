#include "cli/registers_command.hpp"

namespace warpfold::cli {

void add_registers_options(CLI::App& sub, RegistersCommandOptions& o) {
  sub.add_option("--n", o.lab.n, "threads, one output each from 48 inputs (e.g. 2^21); 1 to 2^24")
      ->transform(count_transform())
      ->check(CLI::Range(uint64_t(1), lab::kMaxRegisterThreads))
      ->default_str("2^21");
  add_reps_option(sub, o.lab.reps, "per kernel");
  add_seed_option(sub, o.lab.seed, "seed of the random input (default: fresh each run)");
}

}  // namespace warpfold::cli
