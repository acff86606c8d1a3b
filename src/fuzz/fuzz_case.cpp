#include "fuzz/fuzz_case.hpp"

#include <cmath>
#include <vector>

namespace warpfold::fuzz {

size_t type_bytes(FuzzType t) {
  switch (t) {
    case FuzzType::i8: return 1;
    case FuzzType::i16: case FuzzType::f16: case FuzzType::bf16: return 2;
    case FuzzType::i32: case FuzzType::u32: case FuzzType::f32: return 4;
    case FuzzType::i64: case FuzzType::u64: case FuzzType::f64: return 8;
  }
  return 4;
}

bool is_floating(FuzzType t) {
  return t == FuzzType::f32 || t == FuzzType::f64 || t == FuzzType::f16 || t == FuzzType::bf16;
}

bool supported(FuzzType t, FuzzOp op) {
  const bool fp = is_floating(t);
  switch (op) {
    case FuzzOp::sum: case FuzzOp::min: case FuzzOp::max: case FuzzOp::argmin: case FuzzOp::argmax: return true;
    case FuzzOp::sum_same_type: case FuzzOp::bit_and: case FuzzOp::bit_or: case FuzzOp::bit_xor: return !fp;
    case FuzzOp::product: return t == FuzzType::u32 || t == FuzzType::u64 || t == FuzzType::f64;
    case FuzzOp::sum_of_squares: return t == FuzzType::i32 || t == FuzzType::f32;
    case FuzzOp::compensated_sum: return t == FuzzType::f32 || t == FuzzType::f64;
    case FuzzOp::ladder: return t == FuzzType::i32;
  }
  return false;
}

bool segmentable(FuzzType t, FuzzOp op) {
  if (t == FuzzType::f32) return op == FuzzOp::sum || op == FuzzOp::argmax;
  return (t == FuzzType::i32 || t == FuzzType::i8) && op == FuzzOp::sum;
}

const char* to_string(FuzzType t) {
  static const char* names[] = {"int8", "int16", "int32", "int64", "uint32", "uint64", "float", "double", "half", "bfloat16"};
  return names[size_t(t)];
}

const char* to_string(FuzzOp op) {
  static const char* names[] = {"sum", "sum (same type)", "product", "min", "max", "and", "or", "xor",
                                "argmin", "argmax", "sum of squares", "compensated sum", "ladder"};
  return names[size_t(op)];
}

FuzzCase make_case(uint64_t case_seed, uint64_t max_n, size_t ladder_kernels) {
  splitmix64 rng{case_seed};
  FuzzCase c;
  c.seed = case_seed;
  // n: a quarter of the cases tiny (where head, tail and single-block paths live), the rest
  // log-uniform up to max_n.
  c.n = rng.below(4) == 0 ? rng.below(71) : uint64_t(std::exp2(rng.unit() * std::log2(double(max_n))));
  if (ladder_kernels > 0 && rng.below(5) == 0) {
    c.op = FuzzOp::ladder;
    c.type = FuzzType::i32;
    c.n = std::max<uint64_t>(1, c.n);
    c.block = 32u << rng.below(6);  // 32 … 1024
    c.ladder_kernel = rng.below(ladder_kernels);
    return c;
  }
  c.type = FuzzType(rng.below(10));
  std::vector<FuzzOp> ops;
  for (int o = 0; o < int(FuzzOp::ladder); ++o) {
    if (supported(c.type, FuzzOp(o))) ops.push_back(FuzzOp(o));
  }
  c.op = ops[rng.below(ops.size())];
  c.offset = unsigned(rng.below(16 / type_bytes(c.type)));
  if (is_floating(c.type) && c.op != FuzzOp::product && c.op != FuzzOp::sum_of_squares && c.n > 0) {
    const uint64_t r = rng.below(10);
    c.nan = r == 0;
    c.inf = r == 1;
  }
  // Drawn last, so that the draws above stay those of the full reduce's cases.
  if (segmentable(c.type, c.op) && rng.below(3) == 0) {
    c.layout = rng.below(2) == 0 ? FuzzLayout::segmented : FuzzLayout::axis;
  }
  return c;
}

std::string describe(const FuzzCase& c) {
  std::string s = std::string(to_string(c.op)) + " of " + std::to_string(c.n) + " ";
  if (c.op == FuzzOp::ladder) return s + "int32, fixed ladder kernel #" + std::to_string(c.ladder_kernel) + ", block " + std::to_string(c.block);
  s += std::string(to_string(c.type)) + ", offset " + std::to_string(c.offset);
  if (c.layout == FuzzLayout::segmented) s += ", segmented";
  if (c.layout == FuzzLayout::axis) s += ", along an axis";
  if (c.nan) s += ", with NaN";
  if (c.inf) s += ", with +inf";
  return s;
}

}  // namespace warpfold::fuzz
