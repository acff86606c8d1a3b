#pragma once
// `warpfold grid`: the book's 2-D matrix sum over a list of block shapes, each checked against the
// CPU and timed; shapes beyond the device's limits are reported as invalid configurations.

#include "lab/grid_shape/block_shape.hpp"
#include "harness/run_outcome.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace warpfold::lab {

struct GridOptions {
  uint64_t nx = uint64_t(1) << 14;  // the seed's 16384 × 16384
  uint64_t ny = uint64_t(1) << 14;
  std::vector<BlockShape> shapes = grid_sweep_shapes();
  int reps = 20;
  int warmup = 2;
  std::optional<uint64_t> seed;  // fresh when not given
};

// Throws std::invalid_argument naming the problem (matrix size, no shapes, reps < 1).
void validate_grid_options(const GridOptions& options);

harness::RunOutcome run_grid(const GridOptions& options);

}  // namespace warpfold::lab
