#include "cli/count_parse.hpp"

#include <cctype>
#include <limits>
#include <stdexcept>

namespace warpfold::cli {
namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw std::invalid_argument("'" + text + "' is not a valid count (" + why +
                              "); write a whole number such as 16777216, 2^24, 2^20+7 or 1<<24");
}

// Reads a run of decimal digits at `pos`; fails on none or on overflow of uint64.
uint64_t read_digits(const std::string& text, size_t& pos) {
  if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos]))) bad(text, "a digit is expected");
  uint64_t v = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const unsigned d = unsigned(text[pos++] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) bad(text, "too large");
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

uint64_t parse_count(const std::string& text) {
  if (text.empty()) bad(text, "empty");
  size_t pos = 0;
  uint64_t value = read_digits(text, pos);
  const bool caret = text.compare(pos, 1, "^") == 0;
  const bool shift = text.compare(pos, 2, "<<") == 0;
  if (caret || shift) {
    if (caret && value != 2) bad(text, "only powers of two are written with ^");
    pos += caret ? 1 : 2;
    const uint64_t k = read_digits(text, pos);
    const uint64_t base = caret ? 1 : value;
    if (k >= 64 || (base && base > (std::numeric_limits<uint64_t>::max() >> k))) bad(text, "too large");
    value = base << k;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      const char sign = text[pos++];
      const uint64_t offset = read_digits(text, pos);
      if (sign == '+') {
        if (value > std::numeric_limits<uint64_t>::max() - offset) bad(text, "too large");
        value += offset;
      } else {
        if (offset > value) bad(text, "negative");
        value -= offset;
      }
    }
  }
  if (pos != text.size()) bad(text, "unexpected '" + text.substr(pos) + "'");
  return value;
}

}  // namespace warpfold::cli
