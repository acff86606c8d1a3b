#pragma once
// `warpfold bench --segmented` and `--axis`: warpfold's segmented_reduce and reduce_axis against
// cub::DeviceSegmentedReduce and a roofline probe (a kernel that moves exactly the bytes the
// reduction must move), per shape, float sums, in one process and one run.

#include "bench/bench_run.hpp"
#include "bench/segmented_runners.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::bench {

struct SegmentedBenchOptions {
  bool segmented = true;   // CSR offsets and fixed sizes
  bool axis = true;        // x.sum(dim=1) and x.sum(dim=0) of matrices
  unsigned log2_elements = 26;  // every shape holds 2^log2_elements floats (about)
  int reps = 50;
  int warmup = 5;
  std::optional<uint64_t> seed;  // fresh when not given
};

// How a segmented shape's lengths are drawn.
enum class Lengths { equal, uniform, power_law, tenth_empty };

// How an axis shape's matrix is viewed: as it lies, or strided without a copy.
enum class View { contiguous, transposed, every_other_column };  // x, x.T, x[:, ::2]

struct BenchShape {
  ShapeKind kind = ShapeKind::segmented;
  std::string name;
  Lengths lengths = Lengths::equal;
  uint64_t rows = 0, cols = 0;  // equal lengths: rows segments of cols; axis: a [rows][cols] matrix
  int dim = 1;                  // axis: the dim reduced
  uint64_t mean = 0;            // uniform: lengths uniform in [0, 2·mean]
  bool batch = false;           // the small batch, timed against the launch floor
  bool with_length = false;     // segmented: warpfold's call that takes the input's length
  View view = View::contiguous; // axis: strided views reduce dim 1 of x.T or x[:, ::2]
};

// Every shape the options ask for, in the order run: the matrices of the table and
// beyond (2^24 × 4 … 1 × 2^26, scaled to 2^log2_elements), each as offsets, fixed sizes and both
// axes; uniform random lengths of means 4, 64 and 4096; power-law lengths with one segment
// holding half the data; a tenth of the segments empty; a batch of 1,000 segments of 64, through
// the CUB-style call and through the one that takes the input's length; and two
// strided views of a square matrix, x.T.sum(1) and x[:, ::2].sum(1), against copying them first.
std::vector<BenchShape> segmented_bench_shapes(const SegmentedBenchOptions& options);

// The lengths of a segmented shape of about `total` elements (equal, uniform, power law, a tenth
// empty), drawn from `seed`; they sum to at most `total`.
std::vector<uint64_t> segment_lengths(const BenchShape& shape, uint64_t total, uint64_t seed);

// Throws std::invalid_argument for reps < 1, log2_elements outside 10..30, or no kind chosen.
harness::RunOutcome run_segmented_bench(const SegmentedBenchOptions& options);

}  // namespace warpfold::bench
