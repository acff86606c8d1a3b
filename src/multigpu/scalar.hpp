#pragma once
// One reduction result read back from a GPU, whatever its accumulator: integer for int32 data
// (an int64 sum, an int32 maximum), real for float and double data (widened exactly to double).

#include <cstdint>

namespace warpfold::multigpu {

struct Scalar {
  int64_t integer = 0;
  double real = 0;
};

}  // namespace warpfold::multigpu
