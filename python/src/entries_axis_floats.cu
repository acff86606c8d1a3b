// Along an axis and per segment, floating-point input: sums of every float type (float16 and
// bfloat16 in float32, returned as float16, bfloat16 or float32; float32 also returned as float16
// or bfloat16); products, min, max, argmin and argmax of float32 and float64 along an axis; min
// and max of float32 and float64 per segment.
#include "entries_axis.cuh"

namespace warpfold::python {

void add_axis_float_entries(entry_table& table) {
  add_axis_and_segmented_fold<warpfold::plus, __half, float, __half, __nv_bfloat16>(table);
  add_axis_and_segmented_fold<warpfold::plus, __nv_bfloat16, float, __half, __nv_bfloat16>(table);
  add_axis_and_segmented_fold<warpfold::plus, float, float, __half, __nv_bfloat16>(table);
  add_axis_and_segmented_fold<warpfold::plus, double, double>(table);
  add_axis_non_sums<float, float>(table);
  add_axis_non_sums<double, double>(table);
}

}  // namespace warpfold::python
