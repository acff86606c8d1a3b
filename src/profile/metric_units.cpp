#include "profile/metric_units.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

namespace warpfold::profile {
namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool remove_suffix(std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

// The decimal multiplier of an SI prefix ncu uses, or 0 when `prefix` is none of them.
double si_multiplier(std::string_view prefix) {
  if (prefix.empty()) return 1;
  if (prefix == "k") return 1e3;
  if (prefix == "m") return 1e6;
  if (prefix == "g") return 1e9;
  if (prefix == "t") return 1e12;
  if (prefix == "p") return 1e15;
  return 0;
}

}  // namespace

std::optional<double> parse_metric_number(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c == ',') continue;  // thousands separator
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    digits += c;
  }
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size()) return std::nullopt;  // "n/a", "12abc"
  return v;
}

std::optional<double> to_gigabytes_per_second(double value, std::string_view unit) {
  std::string u = lower(unit);
  if (!remove_suffix(u, "/second") && !remove_suffix(u, "/s")) return std::nullopt;
  if (!remove_suffix(u, "byte") && !remove_suffix(u, "b")) return std::nullopt;
  const double m = si_multiplier(u);
  if (m == 0) return std::nullopt;
  return value * m / 1e9;
}

std::optional<double> to_milliseconds(double value, std::string_view unit) {
  const std::string u = lower(unit);
  if (u == "nsecond" || u == "ns") return value * 1e-6;
  if (u == "usecond" || u == "us") return value * 1e-3;
  if (u == "msecond" || u == "ms") return value;
  if (u == "second" || u == "s") return value * 1e3;
  return std::nullopt;
}

}  // namespace warpfold::profile
