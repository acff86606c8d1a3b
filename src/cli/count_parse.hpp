#pragma once
// Element counts on the command line: plain decimal (16777216), powers of two (2^24), powers of two
// with an offset (2^20+7, 2^16-1) and shifts (1<<24).

#include <cstdint>
#include <string>

namespace warpfold::cli {

// Throws std::invalid_argument with a sentence naming the bad text.
uint64_t parse_count(const std::string& text);

}  // namespace warpfold::cli
