#pragma once
// The one registry of the reduction ladder, shared by the CLI, the tests, the fuzzer, the profiler
// and `warpfold info`'s occupancy table: each step of the ladder is one entry in registry.cu, with
// its book kernel (ladder_book.cuh) and its fixed twin (ladder_fixed.cuh); every list of kernels
// derives from it.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace warpfold::lab {

enum class Variant { book, fixed };
enum class VariantSelection { book, fixed, all };

std::string_view to_string(Variant v);

// Device temp storage a kernel may need beside its data (warpfold::reduce's), owned by the caller.
struct LadderScratch {
  void* data = nullptr;
  size_t bytes = 0;
};

// Launches one kernel of the ladder on `stream`; returns false when the kernel's own launch rule
// launches nothing (the book's grid.x / 8 rounding to 0, or its switch having no case for the
// block size), which leaves the partial sums untouched.
using LadderLaunch = bool (*)(int* data, int* partials, uint64_t n, unsigned grid, unsigned block,
                              LadderScratch scratch, cudaStream_t stream);

struct LadderKernel {
  std::string_view name;    // the book's name
  Variant variant;
  unsigned unroll;          // data tiles folded by one thread block
  bool warp_unrolled;       // ends with the 64 → 1 warp step (the book's needs block ≥ 64)
  // One launch folds all n into partials[0] with its own grid and block (the library's reduce):
  // its grid is 1 partial, and `block` does not apply.
  bool device_wide;
  std::string_view lesson;  // what the step of the ladder teaches
  LadderLaunch launch;
  // The entry point for cudaFuncGetAttributes and the occupancy calculator (null where the
  // library picks its kernel by size), and its name where it is one instance of a template
  // launched per block size (reduceCompleteUnroll<512>, the book's block) or the library's kernel.
  const void* function;
  std::string_view function_name;
};

// The book's grid: ceil(n / block) / unroll, rounding the division down as the book does
// (grid.x / 8); the fixed grid: ceil(n / (block × unroll)); 1 for a device-wide kernel.
unsigned ladder_grid(const LadderKernel& k, uint64_t n, unsigned block);

// Where a book kernel is exact by construction: n a multiple of block × unroll, and block ≥ 64
// when the kernel ends with the warp step. Fixed kernels: always.
bool book_assumptions_hold(const LadderKernel& k, uint64_t n, unsigned block);

// Every kernel, in ladder order, the book variant of each step (where the book has one) before its
// fixed twin.
const std::vector<LadderKernel>& ladder_kernels();
std::vector<const LadderKernel*> select_kernels(VariantSelection selection);

// The scratch bytes the ladder's kernels need on the current device: the most any of them needs.
// Throws warpfold::cuda_error when the device cannot be asked.
size_t ladder_scratch_bytes();

// The registry's entry for a step and variant; throws std::logic_error when there is none.
const LadderKernel& find_ladder_kernel(std::string_view name, Variant variant);

}  // namespace warpfold::lab
