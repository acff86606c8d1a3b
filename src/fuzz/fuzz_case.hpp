#pragma once
// One randomized differential case: which reduce (type, operator, size, pointer offset) or which
// ladder kernel (size, block), all derived from a 64-bit case seed so that a failure can be
// replayed exactly with `warpfold fuzz --replay SEED`.

#include "harness/splitmix64.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpfold::fuzz {

enum class FuzzType { i8, i16, i32, i64, u32, u64, f32, f64, f16, bf16 };
enum class FuzzOp {
  sum,              // into a 64-bit accumulator (int64, uint64, double; float for half/bfloat16)
  sum_same_type,    // integers summed in their own type: wraps like the hardware
  product,          // unsigned integers (wrap) and double (values near 1)
  min,
  max,
  bit_and,
  bit_or,
  bit_xor,
  argmin,
  argmax,
  sum_of_squares,   // transform_reduce, fused square
  compensated_sum,  // float and double
  ladder,           // a fixed kernel of the reduction ladder (int32)
};

// Where the reduction's outputs come from: one over the whole input (reduce), one per segment
// (segmented_reduce over random offsets), or one per line of a 3-D view (reduce_axis).
enum class FuzzLayout { full, segmented, axis };

struct FuzzCase {
  uint64_t seed = 0;
  FuzzType type = FuzzType::i32;
  FuzzOp op = FuzzOp::sum;
  uint64_t n = 0;
  unsigned offset = 0;        // elements past a 256-byte-aligned address (byte offset < 16)
  unsigned block = 0;         // ladder: threads per block
  size_t ladder_kernel = 0;   // ladder: index among the fixed kernels
  bool nan = false;           // floating-point cases: NaNs planted in the data
  bool inf = false;           // floating-point cases: a +inf planted in the data
  FuzzLayout layout = FuzzLayout::full;
};

size_t type_bytes(FuzzType t);
bool is_floating(FuzzType t);
bool supported(FuzzType t, FuzzOp op);
// The (type, operator) pairs drawn as segmented and axis cases too: float sum and argmax, int32
// and int8 sums (few, to keep the kernels' instantiations few).
bool segmentable(FuzzType t, FuzzOp op);
const char* to_string(FuzzType t);
const char* to_string(FuzzOp op);

// Derives every choice from `case_seed`. n is at most max_n.
FuzzCase make_case(uint64_t case_seed, uint64_t max_n, size_t ladder_kernels);

std::string describe(const FuzzCase& c);

// The generator of every fuzz choice and datum.
using harness::splitmix64;

}  // namespace warpfold::fuzz
