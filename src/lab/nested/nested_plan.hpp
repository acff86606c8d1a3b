#pragma once
// The arithmetic of the nested launches, apart from any device: the grid and its padding, how many
// device-side launches each variant makes, the launch slots to reserve, the options check, and the
// verdict of a run. Everything here runs (and is tested) without a GPU.

#include "lab/nested/nested_kernels.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpfold::lab {

// The most device-side launches one run may make. Each launch holds a slot of device memory from
// launch until its grid completes, and a parent completes only after its children, so a run may
// hold all of its launches at once; the cap keeps that reservation, and the run time, bounded.
// 2^18 admits the book's block (512) up to n = 2^24.
inline constexpr uint64_t kNestedMaxChildLaunches = uint64_t(1) << 18;
inline constexpr uint64_t kNestedMaxN = 0xffffffffull;  // the grid must fit an unsigned int
inline constexpr unsigned kHelloMaxGrid = 64;           // keeps the printed output readable
inline constexpr unsigned kHelloMaxBlock = 1024;

struct NestedOptions {
  uint64_t n = uint64_t(1) << 20;  // the seed's size for this lesson
  unsigned block = 512;            // the seed's block
  int reps = 20;
  int warmup = 2;
  std::optional<uint64_t> seed;    // fresh when not given
};

struct NestedHelloOptions {
  unsigned grid = 1;  // the seed's configuration
  unsigned block = 8;
};

std::string_view nested_row_name(NestedVariant v);     // the seed's row: nested, nestedNosync, nested2
std::string_view nested_book_name(NestedVariant v);    // the kernel: gpuRecursiveReduce, ...
std::string_view nested_child_stream(NestedVariant v); // where the children go and who launches them

// The nested kernels halve whole blocks, so n is padded with the identity (0) up to grid × block.
struct NestedShape {
  uint64_t n = 0;
  unsigned block = 0;
  unsigned grid = 0;  // ceil(n / block)
  uint64_t padded_n() const { return uint64_t(grid) * block; }
};
NestedShape nested_shape(uint64_t n, unsigned block);

// log2 of a power of two; throws std::invalid_argument otherwise.
unsigned log2_exact(uint64_t power_of_two);

// Device-side launches of one run (the host's launch of the top grid not counted):
// nested and nestedNosync: one chain per block, grid × (log2(block) - 1);
// nested2: one chain of whole grids, log2(block) - 1.
uint64_t nested_child_launches(NestedVariant v, unsigned grid, unsigned block);

// Grids in one chain, the host's top grid included: log2(block) (at most 10, under CDP's 24).
unsigned nested_depth(unsigned block);

// Launch slots to reserve for runs of this shape: every launch of a run may be outstanding at
// once; twice that, plus a margin, so a finished tree's slots need not be released before the
// next run's launches begin.
uint64_t nested_launch_slots(unsigned grid, unsigned block);

// nestedHelloWorld<<<grid, block>>>(block, 0): each top block starts a chain of one-block grids of
// block / 2, block / 4, ... threads down to 1.
uint64_t hello_child_launches(unsigned grid, unsigned block);  // grid × floor(log2(block))
uint64_t hello_printed_lines(unsigned grid, unsigned block);   // a line per thread, one per launch

// Throw std::invalid_argument with a sentence naming the problem.
void validate_nested_options(const NestedOptions& options);
void validate_hello_options(const NestedHelloOptions& options);

// The outcome of one run (or of several, with expected_launches summed over them).
struct NestedCheck {
  int64_t expected = 0;           // the int32 wrap of the exact sum
  int64_t got = 0;                // wrapping int32 sum of the partial sums
  uint64_t expected_launches = 0;
  NestedLaunchRecord record{};    // what the device-side launches did
  bool ok() const;
  // "ok", or "WRONG ..." naming every problem: a wrong sum, failed launches (with the device
  // runtime's error), a launch count that differs from the formula.
  std::string verdict() const;
};

}  // namespace warpfold::lab
