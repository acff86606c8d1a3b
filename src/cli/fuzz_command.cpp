#include "cli/fuzz_command.hpp"

#include "cli/finish.hpp"

#include <cctype>
#include <cmath>

namespace warpfold::cli {
namespace {

// A finite number of seconds in [kMinFuzzSeconds, kMaxFuzzSeconds], the whole text read: "inf",
// "1e308" or "5s" would run forever or mean something else than was written.
CLI::Validator fuzz_seconds_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          size_t used = 0;
          const double v = s.empty() || std::isspace(static_cast<unsigned char>(s[0])) ? NAN : std::stod(s, &used);
          if (used == s.size() && std::isfinite(v) && v >= fuzz::kMinFuzzSeconds && v <= fuzz::kMaxFuzzSeconds) return {};
        } catch (const std::exception&) {
        }
        return "seconds must be a positive number from " + report::format_number(fuzz::kMinFuzzSeconds) + " to " +
               report::format_number(fuzz::kMaxFuzzSeconds) + " (a day), not '" + s + "'";
      },
      "SECONDS");
}

}  // namespace

Command add_fuzz_command(CLI::App& app, FuzzCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "fuzz", "random types, operators, sizes, pointer offsets and block sizes against the CPU reference");
  CLI::Option* seconds = sub->add_option("--seconds", o.fuzz.seconds, "how long to run")
                             ->check(fuzz_seconds_check())
                             ->capture_default_str();
  CLI::Option* seed = add_seed_option(*sub, o.fuzz.seed, "run seed (default: fresh; printed, with every failing case's seed)");
  sub->add_option("--max-n", o.fuzz.max_n, "largest input size (up to 2^28); a replay needs the run's")
      ->transform(count_transform())
      ->check(CLI::Range(uint64_t(1), fuzz::kMaxFuzzN))
      ->default_str("2^24");
  CLI::Option* replay = add_seed_option(
      *sub, o.fuzz.replay, "run the one case with this case seed (with the --max-n of the run that printed it)", "--replay");
  // A replay runs one case from its case seed: a duration or a run seed would be ignored.
  replay->excludes(seconds);
  replay->excludes(seed);
  add_output_options(*sub, o.output);
  return {sub, [&o]() {
            return finish(fuzz::run_fuzz(o.fuzz), o.output);
          }};
}

}  // namespace warpfold::cli
