#include "lab/grid_shape/block_shape.hpp"

#include <cctype>
#include <limits>
#include <stdexcept>

namespace warpfold::lab {
namespace {

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
  throw std::invalid_argument("'" + text + "' is not a block shape (" + why +
                              "): write WIDTHxHEIGHT with whole numbers of at least 1, such as 32x32 or 128x2");
}

// One dimension: decimal digits only, 1 ≤ value ≤ INT_MAX (larger is no CUDA dimension at all).
unsigned parse_dimension(const std::string& text, const std::string& part) {
  if (part.empty()) malformed(text, "a dimension is missing");
  uint64_t v = 0;
  for (char ch : part) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) malformed(text, "'" + part + "' is not a whole number");
    v = v * 10 + unsigned(ch - '0');
    if (v > uint64_t(std::numeric_limits<int>::max())) malformed(text, "'" + part + "' is too large");
  }
  if (v == 0) malformed(text, "a dimension of 0 threads");
  return static_cast<unsigned>(v);
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

BlockShape parse_block_shape(const std::string& text) {
  const size_t sep = text.find_first_of("xX");
  if (sep == std::string::npos) malformed(text, "no 'x' between width and height");
  const std::string width = text.substr(0, sep), height = text.substr(sep + 1);
  if (height.find_first_of("xX") != std::string::npos) malformed(text, "only 2-D shapes are taken");
  return {parse_dimension(text, width), parse_dimension(text, height)};
}

std::vector<BlockShape> parse_block_shapes(const std::string& list) {
  std::vector<BlockShape> shapes;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw std::invalid_argument("'" + list + "' has an empty item: list shapes as 32x32,64x2");
    shapes.push_back(parse_block_shape(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

const std::vector<BlockShape>& seed_block_shapes() {
  static const std::vector<BlockShape> shapes{{32, 32},  {32, 16},  {16, 32},  {16, 16},  {64, 2},
                                              {64, 4},   {64, 8},   {128, 2},  {128, 4},  {128, 8},
                                              {256, 2},  {256, 4},  {256, 8},  {128, 1},  {256, 1}};
  return shapes;
}

const std::vector<BlockShape>& seed_eighty_thread_shapes() {
  static const std::vector<BlockShape> shapes{{80, 1}, {40, 2}, {16, 5}};
  return shapes;
}

std::string block_shapes_label(const std::vector<BlockShape>& shapes) {
  std::string list;
  for (const BlockShape& b : shapes) list += (list.empty() ? "" : ",") + b.label();
  return list;
}

const std::vector<BlockShape>& grid_sweep_shapes() {
  static const std::vector<BlockShape> shapes = [] {
    // 80x1 beside 96x1 (three whole warps), then the 80 threads in 2-D, then one lane past a warp.
    std::vector<BlockShape> all = seed_block_shapes();
    const std::vector<BlockShape>& eighty = seed_eighty_thread_shapes();
    all.push_back(eighty.front());
    all.push_back({96, 1});
    all.insert(all.end(), eighty.begin() + 1, eighty.end());
    all.push_back({33, 1});
    return all;
  }();
  return shapes;
}

GridShape grid_for(BlockShape b, uint64_t nx, uint64_t ny) {
  return {(nx + b.x - 1) / b.x, (ny + b.y - 1) / b.y};
}

std::optional<std::string> launch_limit_violation(BlockShape b, GridShape g, const harness::DeviceLimits& l) {
  const auto over = [](const std::string& what, uint64_t value, int limit) {
    return what + " " + std::to_string(value) + " > " + std::to_string(limit);
  };
  if (b.threads() > uint64_t(l.max_threads_per_block)) return over("threads per block", b.threads(), l.max_threads_per_block);
  if (b.x > unsigned(l.max_block_dim[0])) return over("block.x", b.x, l.max_block_dim[0]);
  if (b.y > unsigned(l.max_block_dim[1])) return over("block.y", b.y, l.max_block_dim[1]);
  if (g.x > uint64_t(l.max_grid_dim[0])) return over("grid.x", g.x, l.max_grid_dim[0]);
  if (g.y > uint64_t(l.max_grid_dim[1])) return over("grid.y", g.y, l.max_grid_dim[1]);
  return std::nullopt;
}

void validate_matrix_size(uint64_t nx, uint64_t ny) {
  if (nx == 0 || ny == 0) throw std::invalid_argument("the matrix needs nx and ny of at least 1");
  const uint64_t int_max = uint64_t(std::numeric_limits<int>::max());
  if (nx > int_max || ny > int_max) {
    throw std::invalid_argument("nx and ny must fit in an int (sumMatrixOnGPU2D takes int NX, NY)");
  }
  if (nx * ny > uint64_t(std::numeric_limits<uint32_t>::max())) {
    throw std::invalid_argument("nx × ny = " + std::to_string(nx * ny) +
                                " elements is too many: sumMatrixOnGPU2D indexes them with an unsigned int "
                                "(at most 2^32 - 1)");
  }
}

}  // namespace warpfold::lab
