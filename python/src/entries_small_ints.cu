// uint8 (bool too), int8, uint16, int16: sums and products in 32 or 64 bits or in double, min,
// max, argmin, argmax, and/or/xor.
#include "entries.cuh"

namespace warpfold::python {

void add_small_int_entries(entry_table& table) {
  add_sums_and_products<uint8_t, uint32_t, uint64_t, double>(table);
  add_sums_and_products<int8_t, uint32_t, uint64_t, double>(table);
  add_sums_and_products<uint16_t, uint32_t, uint64_t, double>(table);
  add_sums_and_products<int16_t, uint32_t, uint64_t, double>(table);
  add_searches<uint8_t, int8_t, uint16_t, int16_t>(table);
  add_bitwise<uint8_t, uint16_t>(table);
}

}  // namespace warpfold::python
