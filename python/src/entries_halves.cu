// float16, bfloat16: sums and products in float or double, the float ones returned as float16 or
// bfloat16 too; min, max, argmin, argmax (in the type itself: exact); reproducible sums in float,
// returned as float or as the input's type.
#include "entries.cuh"

namespace warpfold::python {

void add_half_entries(entry_table& table) {
  add_sums_and_products<__half, float, double>(table);
  add_sums_and_products<__nv_bfloat16, float, double>(table);
  add_narrowed_sums_and_products<__half, __half, __nv_bfloat16>(table);
  add_narrowed_sums_and_products<__nv_bfloat16, __half, __nv_bfloat16>(table);
  add_searches<__half, __nv_bfloat16>(table);
  add_reproducible_sums<__half, __half, float>(table);
  add_reproducible_sums<__nv_bfloat16, __nv_bfloat16, float>(table);
}

}  // namespace warpfold::python
