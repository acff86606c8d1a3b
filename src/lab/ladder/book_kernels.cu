// Registry entries for the book's ladder (ladder_book.cuh), launched with the
// book's execution configuration.
#include "lab/ladder/registry.hpp"

#include "lab/ladder/ladder_book.cuh"

namespace warpfold::lab {
namespace {

using Kernel = void (*)(int*, int*, unsigned int);

// The book's kernels take `unsigned int n`; the ladder limits n to 2^32 - 1 before calling them.
template <Kernel K>
bool launch_book(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, cudaStream_t s) {
  // The book launches <<<0, block>>> when grid.x / 8 rounds to 0, an invalid configuration whose
  // error it never checks; we skip the launch and report the empty result instead.
  if (grid == 0) return false;
  K<<<grid, block, 0, s>>>(data, partials, static_cast<unsigned int>(n));
  return true;
}

// The book's switch: a case for 64..1024 only; any other block size launches nothing.
bool launch_complete_unroll(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, cudaStream_t s) {
  switch (block) {
    case 1024: return launch_book<book::reduceCompleteUnroll<1024>>(data, partials, n, grid, block, s);
    case 512: return launch_book<book::reduceCompleteUnroll<512>>(data, partials, n, grid, block, s);
    case 256: return launch_book<book::reduceCompleteUnroll<256>>(data, partials, n, grid, block, s);
    case 128: return launch_book<book::reduceCompleteUnroll<128>>(data, partials, n, grid, block, s);
    case 64: return launch_book<book::reduceCompleteUnroll<64>>(data, partials, n, grid, block, s);
    default: return false;
  }
}

}  // namespace

std::vector<LadderLaunch> book_ladder_launches() {
  return {
      launch_book<book::warmup>,
      launch_book<book::reduceNeighbored>,
      launch_book<book::reduceNeighboredLess>,
      launch_book<book::reduceInterleaved>,
      launch_book<book::reduceUnrolling2>,
      launch_book<book::reduceUnrolling4>,
      launch_book<book::reduceUnrolling8>,
      launch_book<book::reduceUnrollWarps8>,
      launch_book<book::reduceCompleteUnrollWarps8>,
      launch_complete_unroll,
      launch_book<book::reduceUnrollWarps>,
  };
}

std::vector<const void*> book_ladder_functions() {
  const auto fn = [](Kernel k) { return reinterpret_cast<const void*>(k); };
  return {fn(book::warmup),
          fn(book::reduceNeighbored),
          fn(book::reduceNeighboredLess),
          fn(book::reduceInterleaved),
          fn(book::reduceUnrolling2),
          fn(book::reduceUnrolling4),
          fn(book::reduceUnrolling8),
          fn(book::reduceUnrollWarps8),
          fn(book::reduceCompleteUnrollWarps8),
          fn(book::reduceCompleteUnroll<512>),
          fn(book::reduceUnrollWarps)};
}

}  // namespace warpfold::lab
