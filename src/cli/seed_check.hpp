#pragma once
// CLI11 check for a 64-bit seed: plain decimal digits only. CLI11 alone reads "-1" and
// "18446744073709551616" as 2^64 - 1 and "010" as octal 8, so a seed as typed would not be the seed
// run. Header-only, for the commands that take a seed.

#include "cli/decimal_check.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

namespace warpfold::cli {

inline CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);  // fails past 2^64 - 1
        if (is_plain_decimal(text) && ec == std::errc() && ptr == end) return {};
        return "'" + text + "' is not a seed: write a whole number from 0 to 18446744073709551615 in decimal";
      },
      "SEED");
}

}  // namespace warpfold::cli
