// float32, float64: sums and products in float (float32 only) or double, float32's also returned
// as float16 or bfloat16; min, max, argmin, argmax; reproducible sums in the input's type.
#include "entries.cuh"

namespace warpfold::python {

void add_float_entries(entry_table& table) {
  add_sums_and_products<float, float, double>(table);
  add_narrowed_sums_and_products<float, __half, __nv_bfloat16>(table);
  add_sums_and_products<double, double>(table);
  add_searches<float, double>(table);
  add_reproducible_sums<float, float>(table);
  add_reproducible_sums<double, double>(table);
}

}  // namespace warpfold::python
