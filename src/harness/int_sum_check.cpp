#include "harness/int_sum_check.hpp"

#include <limits>

namespace warpfold::harness {

IntReference int_reference(int64_t exact_sum) {
  IntReference ref;
  ref.exact = exact_sum;
  ref.overflows_int32 = ref.exact > std::numeric_limits<int32_t>::max() ||
                        ref.exact < std::numeric_limits<int32_t>::min();
  ref.int32_wrap = wrap_to_int32(ref.exact);
  return ref;
}

int32_t wrap_to_int32(int64_t value) {
  // Conversion to an unsigned type is modular by definition; the final cast is two's complement
  // (guaranteed since C++20, and what every supported compiler does in C++17).
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(value)));
}

std::string verdict(int64_t expected, int64_t got) {
  if (expected == got) return "ok";
  return "WRONG expected " + std::to_string(expected) + " got " + std::to_string(got);
}

std::string describe_reference(const IntReference& ref) {
  if (!ref.overflows_int32) {
    return "exact sum " + std::to_string(ref.exact) + " fits in int32: every row is checked against it";
  }
  return "OVERFLOW: the exact sum " + std::to_string(ref.exact) +
         " does not fit in int32; int32 rows are checked against its 32-bit wrap " +
         std::to_string(ref.int32_wrap) + " (marked int32 wrap), 64-bit rows against the exact sum";
}

}  // namespace warpfold::harness
