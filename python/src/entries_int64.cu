// int64, uint64: sums and products in 64 bits or in double, min, max, argmin, argmax, and/or/xor.
#include "entries.cuh"

namespace warpfold::python {

void add_int64_entries(entry_table& table) {
  add_sums_and_products<int64_t, uint64_t, double>(table);
  add_sums_and_products<uint64_t, uint64_t, double>(table);
  add_searches<int64_t, uint64_t>(table);
  add_bitwise<uint64_t>(table);
}

}  // namespace warpfold::python
