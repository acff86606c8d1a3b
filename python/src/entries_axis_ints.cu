// Along an axis and per segment, integer and bool input: sums of every integer type in 64 bits;
// products, min, max, argmin and argmax of int32 and int64 along an axis; min and max of int32
// and int64 per segment.
#include "entries_axis.cuh"

namespace warpfold::python {

void add_axis_int_entries(entry_table& table) {
  add_axis_and_segmented_fold<warpfold::plus, uint8_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, int8_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, uint16_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, int16_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, int32_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, uint32_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, int64_t, uint64_t>(table);
  add_axis_and_segmented_fold<warpfold::plus, uint64_t, uint64_t>(table);
  add_axis_non_sums<int32_t, uint64_t>(table);
  add_axis_non_sums<int64_t, uint64_t>(table);
}

}  // namespace warpfold::python
