// Registry entries for the fixed ladder (ladder_fixed.cuh): grids rounded up,
// every power-of-two block size 32..1024 supported.
#include "lab/ladder/registry.hpp"

#include "lab/ladder/ladder_fixed.cuh"

namespace warpfold::lab {
namespace {

using Kernel = void (*)(int*, int*, fixed::index_t);

template <Kernel K>
bool launch_fixed(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, cudaStream_t s) {
  if (grid == 0) return false;  // only for n = 0, which the ladder rejects earlier
  K<<<grid, block, 0, s>>>(data, partials, n);
  return true;
}

// The book's switch extended down to 32, the smallest block the fixed ladder supports.
bool launch_complete_unroll(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, cudaStream_t s) {
  switch (block) {
    case 1024: return launch_fixed<fixed::reduceCompleteUnroll<1024>>(data, partials, n, grid, block, s);
    case 512: return launch_fixed<fixed::reduceCompleteUnroll<512>>(data, partials, n, grid, block, s);
    case 256: return launch_fixed<fixed::reduceCompleteUnroll<256>>(data, partials, n, grid, block, s);
    case 128: return launch_fixed<fixed::reduceCompleteUnroll<128>>(data, partials, n, grid, block, s);
    case 64: return launch_fixed<fixed::reduceCompleteUnroll<64>>(data, partials, n, grid, block, s);
    case 32: return launch_fixed<fixed::reduceCompleteUnroll<32>>(data, partials, n, grid, block, s);
    default: return false;
  }
}

}  // namespace

std::vector<LadderLaunch> fixed_ladder_launches() {
  return {
      launch_fixed<fixed::warmup>,
      launch_fixed<fixed::reduceNeighbored>,
      launch_fixed<fixed::reduceNeighboredLess>,
      launch_fixed<fixed::reduceInterleaved>,
      launch_fixed<fixed::reduceUnrolling<2>>,
      launch_fixed<fixed::reduceUnrolling<4>>,
      launch_fixed<fixed::reduceUnrolling<8>>,
      launch_fixed<fixed::reduceUnrollWarps<8>>,
      launch_fixed<fixed::reduceCompleteUnrollWarps8>,
      launch_complete_unroll,
      launch_fixed<fixed::reduceUnrollWarps<2>>,
  };
}

std::vector<const void*> fixed_ladder_functions() {
  const auto fn = [](Kernel k) { return reinterpret_cast<const void*>(k); };
  return {fn(fixed::warmup),
          fn(fixed::reduceNeighbored),
          fn(fixed::reduceNeighboredLess),
          fn(fixed::reduceInterleaved),
          fn(fixed::reduceUnrolling<2>),
          fn(fixed::reduceUnrolling<4>),
          fn(fixed::reduceUnrolling<8>),
          fn(fixed::reduceUnrollWarps<8>),
          fn(fixed::reduceCompleteUnrollWarps8),
          fn(fixed::reduceCompleteUnroll<512>),
          fn(fixed::reduceUnrollWarps<2>)};
}

}  // namespace warpfold::lab
