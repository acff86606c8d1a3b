// int32, uint32: sums and products in 32 or 64 bits or in double, min, max, argmin, argmax,
// and/or/xor.
#include "entries.cuh"

namespace warpfold::python {

void add_int32_entries(entry_table& table) {
  add_sums_and_products<int32_t, uint32_t, uint64_t, double>(table);
  add_sums_and_products<uint32_t, uint32_t, uint64_t, double>(table);
  add_searches<int32_t, uint32_t>(table);
  add_bitwise<uint32_t>(table);
}

}  // namespace warpfold::python
