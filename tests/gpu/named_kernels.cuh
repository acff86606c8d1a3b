#pragma once
// The reduce through a kernel named explicitly, where the dispatch would pick by size: the wide
// and bulk kernels' tests (test_reduce_named_kernels_gpu.cu, and each kernel's own file) meet
// every awkward size, pointer offset and combine path that the narrow kernel meets.

#include "gpu/reduce_test_support.cuh"

#include <string>
#include <vector>

namespace warpfold::testing {

// The reduce with kernel `Pick` (by_size: the dispatch's own choice), on the default stream.
template <detail::kernel_pick Pick, class T, class Acc, class Op>
cudaError_t reduce_through(void* temp, size_t& bytes, const T* in, Acc* out, uint64_t n, Op op, Acc init) {
  return detail::dispatch_reduce<Pick>(temp, bytes, in, out, n, init, op, detail::convert<identity>{}, cudaStream_t{});
}

// The sizes of the reduce tests and `more`, those within the run's limit (max_test_n).
inline std::vector<uint64_t> reduce_sizes_and(std::initializer_list<uint64_t> more) {
  std::vector<uint64_t> sizes = reduce_sizes();
  for (uint64_t n : more)
    if (n <= max_test_n()) sizes.push_back(n);
  return sizes;
}

// The wide kernel (8 vectors in flight per thread, 32 KiB tiles): the reduce sizes and a few
// more around its tiles (8192 4-byte elements) and its one-block limit (two tiles).
struct wide_kernel {
  static constexpr detail::kernel_pick pick = detail::kernel_pick::wide;
  static std::string name() { return "wide"; }
  static std::vector<uint64_t> sizes() { return reduce_sizes_and({8192 * 2 - 1, 8192 * 2 + 1, 8192 * 3 + 5, (1ull << 22) + 3}); }
};

// The bulk kernel (the wide tiles, full ones brought into shared memory by bulk copies): the
// reduce sizes, and grids of 4 and 8 tiles per block (for 4-byte elements: 2^23 + 3 and
// 2^24 + 13 take 1025 and 2049 tiles of 8192 over 264 blocks on a 132-SM device), one of them not
// a whole number of tiles, where each block reads more tiles than it has stages.
struct bulk_kernel {
  static constexpr detail::kernel_pick pick = detail::kernel_pick::bulk;
  static std::string name() { return "bulk"; }
  static std::vector<uint64_t> sizes() { return reduce_sizes_and({8192 * 2 + 1, 8192 * 3 + 5, (1ull << 23) + 3, (1ull << 24) + 13}); }
};

}  // namespace warpfold::testing
