#pragma once
// Whole-number options in plain decimal. CLI11 alone reads "010" as octal 8 and "0x10" as 16, so
// `--reps 010` would run 8 repetitions and `--block 064` report block size 52, a value never
// typed. Header-only; main() applies it to every integer option of every command.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <string>

namespace warpfold::cli {

// Digits only, no sign, no leading zero ("0" itself is fine).
inline bool is_plain_decimal(const std::string& text) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  return digits && (text.size() == 1 || text[0] != '0');
}

inline CLI::Validator decimal_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (is_plain_decimal(text)) return {};
        return "'" + text + "' is not a whole number in decimal (digits only, no sign, no leading zero)";
      },
      "");
}

// Adds decimal_check to every option of `app` and its subcommands whose value is an integer
// (CLI11's type names INT and UINT). It runs after an option's own transforms (so sizes written
// as 2^24 are already digits by then) and checks.
inline void require_decimal_integers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const auto is = [&](const std::string& name) {
      return type.compare(0, name.size(), name) == 0 && (type.size() == name.size() || type[name.size()] == ':');
    };
    if (is("INT") || is("UINT")) option->check(decimal_check());
  }
  for (CLI::App* sub : app.get_subcommands({})) require_decimal_integers(*sub);
}

}  // namespace warpfold::cli
