#include "cli/info_command.hpp"

#include <string>

namespace warpfold::cli {
namespace {

// CLI11's PositiveNumber names a range up to DBL_MAX in its message; this one says what is wanted.
CLI::Validator cycles_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && v > 0 && v < 1e9) return {};
        } catch (const std::exception&) {
        }
        return "latency '" + text + "' is not a positive number of cycles";
      },
      "CYCLES");
}

}  // namespace

void add_info_options(CLI::App& sub, InfoCommandOptions& o) {
  sub.add_option("--arith-latency", o.lab.latency.arithmetic_cycles,
                 "cycles of an arithmetic instruction for this device's Little's-law row (the book's Fermi figure)")
      ->check(cycles_check())
      ->capture_default_str();
  sub.add_option("--mem-latency", o.lab.latency.memory_cycles,
                 "cycles of a global memory access for this device's Little's-law rows (the book's figure)")
      ->check(cycles_check())
      ->capture_default_str();
}

}  // namespace warpfold::cli
