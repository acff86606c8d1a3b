#pragma once
// Exact integer references and the verdict strings every check prints.
//
// The book's data (rand() & 0xFF, n = 2^24) sums to about 2^31: right at the edge of int32.
// References are therefore computed in 64 bits; an int32 kernel is compared with the 32-bit wrap
// of the exact sum (what two's-complement hardware produces), and the output says so.

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpfold::harness {

struct IntReference {
  int64_t exact = 0;           // the true sum
  bool overflows_int32 = false;
  int32_t int32_wrap = 0;      // what an int32 accumulator holds after wrapping
};

// Classifies an exact sum (computed by the caller in 64 bits) against the int32 range.
IntReference int_reference(int64_t exact_sum);

int32_t wrap_to_int32(int64_t value);

// "ok", or "WRONG expected X got Y".
std::string verdict(int64_t expected, int64_t got);

// One sentence about the reference, for the notes under a table.
std::string describe_reference(const IntReference& ref);

}  // namespace warpfold::harness
