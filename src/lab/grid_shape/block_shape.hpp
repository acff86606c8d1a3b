#pragma once
// Block shapes for the 2-D matrix sum: parsing them from the command line ("32x32,64x2"), the
// seed's list, the grid that covers an nx × ny matrix, and the launch limits a shape must respect.
// Pure logic, tested without a GPU.

#include "harness/device_limits.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::lab {

struct BlockShape {
  unsigned x = 0, y = 0;
  uint64_t threads() const { return uint64_t(x) * y; }
  std::string label() const { return std::to_string(x) + "x" + std::to_string(y); }
  bool operator==(const BlockShape& o) const { return x == o.x && y == o.y; }
};

struct GridShape {
  uint64_t x = 0, y = 0;
  std::string label() const { return std::to_string(x) + "x" + std::to_string(y); }
};

// "WIDTHxHEIGHT" with both at least 1, e.g. "32x32" or "128X2". Throws std::invalid_argument with a
// sentence naming the text for anything else ("0x0", "7", "abc", "32x", "1x2x3").
BlockShape parse_block_shape(const std::string& text);

// A comma-separated list of shapes; spaces around the items are ignored, empty items rejected.
std::vector<BlockShape> parse_block_shapes(const std::string& list);

// The seed's 15 shapes, in the order it ran them (32x32 ... 256x8, then 128x1 and 256x1).
const std::vector<BlockShape>& seed_block_shapes();

// The seed's block of 80 threads, one-dimensional (80x1) and two-dimensional (40x2, 16x5).
const std::vector<BlockShape>& seed_eighty_thread_shapes();

// The shapes as a list `parse_block_shapes` reads back ("80x1,40x2,16x5").
std::string block_shapes_label(const std::vector<BlockShape>& shapes);

// `warpfold grid`'s sweep: the seed's shapes, then shapes whose threads are no multiple of 32
// (80x1 beside 96x1, the seed's 80 threads as 40x2 and 16x5, and 33x1), to show what a partial
// last warp costs.
const std::vector<BlockShape>& grid_sweep_shapes();

// The seed's grid: ((nx + bx - 1) / bx, (ny + by - 1) / by).
GridShape grid_for(BlockShape block, uint64_t nx, uint64_t ny);

// Why the launch would be an invalid configuration on a device with these limits ("2048 threads
// per block > 1024"), or nullopt when it is within them.
std::optional<std::string> launch_limit_violation(BlockShape block, GridShape grid, const harness::DeviceLimits& limits);

// The matrix sizes sumMatrixOnGPU2D can index: nx, ny ≥ 1, each within int (its NX, NY) and
// nx × ny < 2^32 (its unsigned idx). Throws std::invalid_argument naming the problem.
void validate_matrix_size(uint64_t nx, uint64_t ny);

}  // namespace warpfold::lab
