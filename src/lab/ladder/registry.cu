// The steps of the reduction ladder, one entry each: its shape, what it teaches, and its kernels
// in both variants, each with the launch rule of its variant.
#include "lab/ladder/registry.hpp"

#include "lab/ladder/ladder_book.cuh"
#include "lab/ladder/ladder_fixed.cuh"
#include "lab/ladder/ladder_modern.cuh"
#include "lab/ladder/ladder_pragma.cuh"

#include <warpfold/reduce.cuh>

#include <stdexcept>
#include <string>
#include <utility>

namespace warpfold::lab {
namespace {

using BookKernel = void (*)(int*, int*, unsigned int);
using FixedKernel = void (*)(int*, int*, fixed::index_t);

// The book's kernels take `unsigned int n`; the ladder limits n to 2^32 - 1 before calling them.
template <BookKernel K>
bool launch_book(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, LadderScratch, cudaStream_t s) {
  // The book launches <<<0, block>>> when grid.x / 8 rounds to 0, an invalid configuration whose
  // error it never checks; the ladder skips the launch and reports the empty result instead.
  if (grid == 0) return false;
  K<<<grid, block, 0, s>>>(data, partials, static_cast<unsigned int>(n));
  return true;
}

template <FixedKernel K>
bool launch_fixed(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, LadderScratch, cudaStream_t s) {
  if (grid == 0) return false;  // only for n = 0, which the ladder rejects earlier
  K<<<grid, block, 0, s>>>(data, partials, n);
  return true;
}

// The book's switch over the block size for reduceCompleteUnroll<iBlockSize>: a case for 64..1024
// only, where any other block size launches nothing.
bool launch_book_complete_unroll(int* data, int* partials, uint64_t n, unsigned grid, unsigned block,
                                 LadderScratch none, cudaStream_t s) {
  switch (block) {
    case 1024: return launch_book<book::reduceCompleteUnroll<1024>>(data, partials, n, grid, block, none, s);
    case 512: return launch_book<book::reduceCompleteUnroll<512>>(data, partials, n, grid, block, none, s);
    case 256: return launch_book<book::reduceCompleteUnroll<256>>(data, partials, n, grid, block, none, s);
    case 128: return launch_book<book::reduceCompleteUnroll<128>>(data, partials, n, grid, block, none, s);
    case 64: return launch_book<book::reduceCompleteUnroll<64>>(data, partials, n, grid, block, none, s);
    default: return false;
  }
}

// A fixed kernel templated on its block size (Family::kernel<B>): the same switch extended down
// to 32, the smallest block the fixed ladder supports.
template <class Family>
bool launch_fixed_per_block(int* data, int* partials, uint64_t n, unsigned grid, unsigned block, LadderScratch none,
                            cudaStream_t s) {
  switch (block) {
    case 1024: return launch_fixed<Family::template kernel<1024>>(data, partials, n, grid, block, none, s);
    case 512: return launch_fixed<Family::template kernel<512>>(data, partials, n, grid, block, none, s);
    case 256: return launch_fixed<Family::template kernel<256>>(data, partials, n, grid, block, none, s);
    case 128: return launch_fixed<Family::template kernel<128>>(data, partials, n, grid, block, none, s);
    case 64: return launch_fixed<Family::template kernel<64>>(data, partials, n, grid, block, none, s);
    case 32: return launch_fixed<Family::template kernel<32>>(data, partials, n, grid, block, none, s);
    default: return false;
  }
}

struct CompleteUnroll {
  template <unsigned B>
  static constexpr FixedKernel kernel = fixed::reduceCompleteUnroll<B>;
};
struct CubBlockReduce {
  template <unsigned B>
  static constexpr FixedKernel kernel = fixed::reduceCubBlockReduce<B>;
};

// warpfold::reduce over all n into *out: int32 elements summed as unsigned (the int32 wrap, with
// defined overflow), in the library's own grid and block. A null `temp` asks for its size.
cudaError_t library_sum(void* temp, size_t& bytes, const int* data, int* out, uint64_t n, cudaStream_t s) {
  return warpfold::reduce(temp, bytes, data, reinterpret_cast<unsigned*>(out), n, warpfold::plus{}, 0u, s);
}

bool launch_library_reduce(int* data, int* partials, uint64_t n, unsigned, unsigned, LadderScratch scratch,
                           cudaStream_t s) {
  size_t bytes = scratch.bytes;
  WARPFOLD_CUDA_CHECK(library_sum(scratch.data, bytes, data, partials, n, s));
  return true;
}

// One variant of a step: how to launch it, and its entry point (with its name where it is one
// instance of a template). A step the book does not write has no book kernel (launch null).
struct Entry {
  LadderLaunch launch = nullptr;
  const void* function = nullptr;
  std::string_view function_name;
};

template <BookKernel K>
Entry book_kernel() {
  return {launch_book<K>, reinterpret_cast<const void*>(K), {}};
}
template <FixedKernel K>
Entry fixed_kernel() {
  return {launch_fixed<K>, reinterpret_cast<const void*>(K), {}};
}

struct Step {
  std::string_view name;
  unsigned unroll;
  bool warp_unrolled;
  std::string_view lesson;
  Entry book, fixed;
  bool device_wide = false;
};

// The steps of the ladder, in the order the book climbs it, then the experiment on its unrolling
// and the steps past the book (docs/ladder.md gives the reason for each).
std::vector<Step> steps() {
  return {
      {"warmup", 1, false, "warm-up (reduceNeighbored's code)", book_kernel<book::warmup>(), fixed_kernel<fixed::warmup>()},
      {"reduceNeighbored", 1, false, "divergence: neighbored pairs", book_kernel<book::reduceNeighbored>(),
       fixed_kernel<fixed::reduceNeighbored>()},
      {"reduceNeighboredLess", 1, false, "divergence: busy threads first", book_kernel<book::reduceNeighboredLess>(),
       fixed_kernel<fixed::reduceNeighboredLess>()},
      {"reduceInterleaved", 1, false, "divergence: interleaved pairs", book_kernel<book::reduceInterleaved>(),
       fixed_kernel<fixed::reduceInterleaved>()},
      {"reduceUnrolling2", 2, false, "unrolling: 2 tiles per block", book_kernel<book::reduceUnrolling2>(),
       fixed_kernel<fixed::reduceUnrolling<2>>()},
      {"reduceUnrolling4", 4, false, "unrolling: 4 tiles per block", book_kernel<book::reduceUnrolling4>(),
       fixed_kernel<fixed::reduceUnrolling<4>>()},
      {"reduceUnrolling8", 8, false, "unrolling: 8 tiles per block", book_kernel<book::reduceUnrolling8>(),
       fixed_kernel<fixed::reduceUnrolling<8>>()},
      {"reduceUnrollWarps8", 8, true, "unrolling: last warp unrolled", book_kernel<book::reduceUnrollWarps8>(),
       fixed_kernel<fixed::reduceUnrollWarps<8>>()},
      {"reduceCompleteUnrollWarps8", 8, true, "unrolling: complete unroll",
       book_kernel<book::reduceCompleteUnrollWarps8>(), fixed_kernel<fixed::reduceCompleteUnrollWarps8>()},
      {"reduceCompleteUnroll", 8, true, "templates: block size at compile time",
       {launch_book_complete_unroll, reinterpret_cast<const void*>(book::reduceCompleteUnroll<512>),
        "reduceCompleteUnroll<512>"},
       {launch_fixed_per_block<CompleteUnroll>, reinterpret_cast<const void*>(fixed::reduceCompleteUnroll<512>),
        "reduceCompleteUnroll<512>"}},
      {"reduceUnrollWarps", 2, true, "unrolling: 2 tiles + last warp", book_kernel<book::reduceUnrollWarps>(),
       fixed_kernel<fixed::reduceUnrollWarps<2>>()},
      // An experiment on a book kernel: the book's code with one change, so a book kernel only.
      {"reduceUnrolling8Pragma", 8, false, "unrolling: the 8 loads as a #pragma unroll loop",
       book_kernel<book::reduceUnrolling8Pragma>(), {}},
      {"reduceCooperativeGroups", fixed::kModernUnroll, false, "past the book: registers, cg::reduce", {},
       fixed_kernel<fixed::reduceCooperativeGroups>()},
      {"reduceReduxSync", fixed::kModernUnroll, false, "past the book: __reduce_add_sync", {},
       fixed_kernel<fixed::reduceReduxSync>()},
      {"reduceCubBlockReduce", fixed::kModernUnroll, false, "past the book: CUB BlockReduce", {},
       {launch_fixed_per_block<CubBlockReduce>, reinterpret_cast<const void*>(fixed::reduceCubBlockReduce<512>),
        "reduceCubBlockReduce<512>"}},
      {"reduceWarpfold", 1, false, "past the book: warpfold::reduce, one launch", {},
       {launch_library_reduce, nullptr, "single_pass"}, true},
  };
}

}  // namespace

std::string_view to_string(Variant v) { return v == Variant::book ? "book" : "fixed"; }

unsigned ladder_grid(const LadderKernel& k, uint64_t n, unsigned block) {
  if (k.device_wide) return 1;
  if (k.variant == Variant::book) return static_cast<unsigned>((n + block - 1) / block / k.unroll);
  const uint64_t tile = uint64_t(block) * k.unroll;
  return static_cast<unsigned>((n + tile - 1) / tile);
}

bool book_assumptions_hold(const LadderKernel& k, uint64_t n, unsigned block) {
  if (k.variant == Variant::fixed) return true;
  if (k.warp_unrolled && block < 64) return false;
  return n % (uint64_t(block) * k.unroll) == 0;
}

const std::vector<LadderKernel>& ladder_kernels() {
  static const std::vector<LadderKernel> all = [] {
    std::vector<LadderKernel> kernels;
    for (const Step& s : steps()) {
      for (const auto& [variant, entry] : {std::pair{Variant::book, s.book}, std::pair{Variant::fixed, s.fixed}}) {
        if (!entry.launch) continue;
        const std::string_view function_name = entry.function_name.empty() ? s.name : entry.function_name;
        kernels.push_back({s.name, variant, s.unroll, s.warp_unrolled, s.device_wide, s.lesson, entry.launch,
                           entry.function, function_name});
      }
    }
    return kernels;
  }();
  return all;
}

std::vector<const LadderKernel*> select_kernels(VariantSelection selection) {
  std::vector<const LadderKernel*> out;
  for (const auto& k : ladder_kernels()) {
    if (selection == VariantSelection::all ||
        (selection == VariantSelection::book) == (k.variant == Variant::book)) {
      out.push_back(&k);
    }
  }
  return out;
}

size_t ladder_scratch_bytes() {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(library_sum(nullptr, bytes, nullptr, nullptr, 0, 0));
  return bytes;
}

const LadderKernel& find_ladder_kernel(std::string_view name, Variant variant) {
  for (const LadderKernel& k : ladder_kernels()) {
    if (k.name == name && k.variant == variant) return k;
  }
  throw std::logic_error("the ladder registry has no " + std::string(name) + " (" + std::string(to_string(variant)) + ")");
}

}  // namespace warpfold::lab
