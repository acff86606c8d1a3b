#pragma once
// The pieces every subcommand shares: exit codes, output options and the registration shape.

#include "report/table.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::cli {

// Exit codes, documented in docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitRuntimeError = 1,  // a CUDA or I/O failure
  kExitUsageError = 2,    // bad flags or values: nothing was run
  kExitNoDevice = 3,      // no CUDA device: only the CPU parts ran
  kExitCheckFailed = 4,   // a result that must be exact (fixed kernels, CPU references) was wrong
  kExitToolMissing = 5,   // `profile`: ncu or cuobjdump not found
  kExitNoCounterPermission = 6,  // `profile`: ncu may not read the GPU's counters (ERR_NVGPUCTRPERM)
};

// A registered subcommand: its CLI11 node and what to run when it was chosen.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

struct OutputOptions {
  std::string format = "table";
  std::string out;  // empty: stdout
};

void add_output_options(CLI::App& sub, OutputOptions& out);

// CLI11 check: a path report::write_output can write (for --out and other files a command writes).
CLI::Validator output_file_check();

// Renders and writes the report as the user asked.
void emit(const report::Report& report, const OutputOptions& out);

// CLI11 transform turning "2^24", "2^20+7" or "1<<24" into decimal, with a clear error otherwise.
CLI::Validator count_transform();

// CLI11 check: a power of two from 32 to 1024.
CLI::Validator block_size_check();

// The options several lab commands share: --block (threads per block, checked by
// block_size_check) and --reps (timed repetitions, "per kernel" or as `what` says).
void add_block_option(CLI::App& sub, unsigned& block);
void add_reps_option(CLI::App& sub, int& reps, const std::string& what);

// --seed (or another `name`): a 64-bit seed in plain decimal (seed_check.hpp), stored in `seed`
// as given, 0 included; left empty when the option is not given.
CLI::Option* add_seed_option(CLI::App& sub, std::optional<uint64_t>& seed, const std::string& description,
                             const std::string& name = "--seed");

// Parses `args` (reversed as CLI11 takes them, and with every integer option in plain decimal, as
// main() does) into `app`; throws what CLI11 throws.
void parse_arguments(CLI::App& app, std::vector<std::string> args);

}  // namespace warpfold::cli
