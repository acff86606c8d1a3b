#include "cli/fuzz_command.hpp"

#include <iostream>

namespace warpfold::cli {

Command add_fuzz_command(CLI::App& app, FuzzCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "fuzz", "random types, operators, sizes, pointer offsets and block sizes against the CPU reference");
  sub->add_option("--seconds", o.fuzz.seconds, "how long to run")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            try {
              if (std::stod(s) > 0) return {};
            } catch (const std::exception&) {
            }
            return "seconds must be a positive number, not '" + s + "'";
          },
          "SECONDS"))
      ->capture_default_str();
  sub->add_option("--seed", o.fuzz.seed, "run seed (default: fresh; printed, with every failing case's seed)");
  sub->add_option("--max-n", o.fuzz.max_n, "largest input size (up to 2^28)")
      ->transform(count_transform())
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 28))
      ->default_str("2^24");
  CLI::Option* replay = sub->add_option("--replay", o.replay, "run the one case with this case seed");
  add_output_options(*sub, o.output);
  return {sub, [&o, replay]() {
            if (replay->count()) o.fuzz.replay = o.replay;
            const fuzz::FuzzRunOutcome outcome = fuzz::run_fuzz(o.fuzz);
            emit(outcome.report, o.output);
            if (!outcome.gpu_ran) {
              std::cerr << "warpfold: " << outcome.report.meta.value("no_device_reason", std::string("no CUDA device"))
                        << ": fuzzing needs a GPU\n";
              return int(kExitNoDevice);
            }
            if (outcome.failures) {
              std::cerr << "warpfold: " << outcome.failures << " of " << outcome.cases << " fuzz cases failed\n";
              return int(kExitCheckFailed);
            }
            return int(kExitOk);
          }};
}

}  // namespace warpfold::cli
