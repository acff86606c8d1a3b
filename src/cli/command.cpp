#include "cli/command.hpp"

#include "cli/count_parse.hpp"
#include "cli/decimal_check.hpp"
#include "cli/seed_check.hpp"

#include <algorithm>

namespace warpfold::cli {

CLI::Validator output_file_check() {
  // Checked while the arguments are, so an unwritable path fails before the run, not after it.
  return CLI::Validator([](std::string& path) { return report::output_problem(path).value_or(""); }, "FILE");
}

void add_output_options(CLI::App& sub, OutputOptions& out) {
  sub.add_option("--format", out.format, "output format")
      ->check(CLI::IsMember(report::format_names()))
      ->capture_default_str();
  sub.add_option("--out", out.out, "write the output to FILE instead of stdout")->check(output_file_check());
}

void emit(const report::Report& report, const OutputOptions& out) {
  report::write_output(out.out, report::render(report, *report::parse_format(out.format)));
}

CLI::Validator count_transform() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          text = std::to_string(parse_count(text));
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "COUNT");
}

CLI::Validator block_size_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          const unsigned long long b = std::stoull(text);
          if (b >= 32 && b <= 1024 && (b & (b - 1)) == 0) return {};
        } catch (const std::exception&) {
        }
        return "block size '" + text + "' is not supported: use a power of two from 32 to 1024";
      },
      "BLOCK");
}

void add_block_option(CLI::App& sub, unsigned& block) {
  sub.add_option("--block", block, "threads per block: a power of two from 32 to 1024")
      ->check(block_size_check())
      ->capture_default_str();
}

void add_reps_option(CLI::App& sub, int& reps, const std::string& what) {
  sub.add_option("--reps", reps, "timed repetitions " + what)->check(CLI::Range(1, 100000))->capture_default_str();
}

CLI::Option* add_seed_option(CLI::App& sub, std::optional<uint64_t>& seed, const std::string& description,
                             const std::string& name) {
  return sub.add_option_function<uint64_t>(name, [&seed](const uint64_t& value) { seed = value; }, description)
      ->check(seed_check());
}

void parse_arguments(CLI::App& app, std::vector<std::string> args) {
  require_decimal_integers(app);
  std::reverse(args.begin(), args.end());
  app.parse(args);
}

}  // namespace warpfold::cli
