#include "lab/nested/nested_plan.hpp"

#include "harness/int_sum_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>

namespace warpfold::lab {
namespace {

bool is_power_of_two(uint64_t x) { return x && !(x & (x - 1)); }

unsigned floor_log2(uint64_t x) {
  unsigned k = 0;
  while (x >>= 1) ++k;
  return k;
}

}  // namespace

namespace {

struct VariantNames {
  std::string_view row, book, child_stream;
};

// Indexed by NestedVariant, in the seed's order.
constexpr VariantNames kVariantNames[] = {
    {"nested", "gpuRecursiveReduce", "tail launch, every block"},
    {"nestedNosync", "gpuRecursiveReduceNosync", "fire-and-forget, every block"},
    {"nested2", "gpuRecursiveReduce2", "tail launch, block 0"},
};

const VariantNames& names(NestedVariant v) { return kVariantNames[static_cast<size_t>(v)]; }

}  // namespace

std::string_view nested_row_name(NestedVariant v) { return names(v).row; }
std::string_view nested_book_name(NestedVariant v) { return names(v).book; }
std::string_view nested_child_stream(NestedVariant v) { return names(v).child_stream; }

NestedShape nested_shape(uint64_t n, unsigned block) {
  if (block == 0) throw std::invalid_argument("block size must be positive");
  NestedShape s;
  s.n = n;
  s.block = block;
  s.grid = static_cast<unsigned>((n + block - 1) / block);
  return s;
}

unsigned log2_exact(uint64_t power_of_two) {
  if (!is_power_of_two(power_of_two)) {
    throw std::invalid_argument(std::to_string(power_of_two) + " is not a power of two");
  }
  return floor_log2(power_of_two);
}

uint64_t nested_child_launches(NestedVariant v, unsigned grid, unsigned block) {
  const unsigned per_chain = log2_exact(block) - (block > 1 ? 1 : 0);  // tile sizes block .. 4 launch
  return v == NestedVariant::nested2 ? per_chain : uint64_t(grid) * per_chain;
}

unsigned nested_depth(unsigned block) { return block > 1 ? log2_exact(block) : 1; }

uint64_t nested_launch_slots(unsigned grid, unsigned block) {
  uint64_t most = 0;
  for (NestedVariant v : kNestedVariants) most = std::max(most, nested_child_launches(v, grid, block));
  return 2 * most + 256;
}

uint64_t hello_child_launches(unsigned grid, unsigned block) {
  return block == 0 ? 0 : uint64_t(grid) * floor_log2(block);
}

uint64_t hello_printed_lines(unsigned grid, unsigned block) {
  uint64_t per_block = 0;
  for (unsigned size = block; size >= 1; size >>= 1) per_block += size;  // one line per thread
  return uint64_t(grid) * per_block + hello_child_launches(grid, block);  // one per launch
}

void validate_nested_options(const NestedOptions& o) {
  if (o.n == 0) throw std::invalid_argument("n must be at least 1");
  if (o.n > kNestedMaxN) {
    throw std::invalid_argument("n = " + std::to_string(o.n) + " is too large: at most 2^32 - 1");
  }
  if (!is_power_of_two(o.block) || o.block < 32 || o.block > 1024) {
    throw std::invalid_argument("block size " + std::to_string(o.block) +
                                " is not supported: use a power of two from 32 to 1024");
  }
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.warmup < 0) throw std::invalid_argument("warmup must not be negative");
  const NestedShape s = nested_shape(o.n, o.block);
  const uint64_t launches = nested_child_launches(NestedVariant::nested, s.grid, s.block);
  if (launches > kNestedMaxChildLaunches) {
    throw std::invalid_argument(
        "n = " + std::to_string(o.n) + " with block " + std::to_string(o.block) + " needs " +
        std::to_string(launches) + " device-side launches per run (grid " + std::to_string(s.grid) +
        " x (log2(block) - 1)); at most " + std::to_string(kNestedMaxChildLaunches) +
        " are allowed, since each holds a launch slot of device memory until it completes: "
        "use a larger --block or a smaller --n");
  }
}

void validate_hello_options(const NestedHelloOptions& o) {
  if (o.grid < 1 || o.grid > kHelloMaxGrid) {
    throw std::invalid_argument("grid " + std::to_string(o.grid) + " is not supported: use 1 to " +
                                std::to_string(kHelloMaxGrid));
  }
  if (o.block < 1 || o.block > kHelloMaxBlock) {
    throw std::invalid_argument("block " + std::to_string(o.block) + " is not supported: use 1 to " +
                                std::to_string(kHelloMaxBlock));
  }
}

bool NestedCheck::ok() const {
  return expected == got && record.failures == 0 && record.launches == expected_launches;
}

std::string NestedCheck::verdict() const {
  if (ok()) return "ok";
  std::string out = expected != got ? harness::verdict(expected, got) : "WRONG";
  const std::string sep = expected != got ? "; " : " ";
  if (record.failures > 0) {
    out += sep + std::to_string(record.failures) + " of " + std::to_string(record.failures + record.launches) +
           " child launches failed (" + cudaGetErrorName(static_cast<cudaError_t>(record.first_error)) + ")";
  } else if (record.launches != expected_launches) {
    out += sep + std::to_string(record.launches) + " child launches, expected " + std::to_string(expected_launches);
  }
  return out;
}

}  // namespace warpfold::lab
