// Block shapes of `warpfold grid`: parsing, the seed's list, grids and launch limits.
#include "lab/grid_shape/block_shape.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace warpfold;
using lab::BlockShape;

TEST(BlockShape, ParsesWidthByHeight) {
  EXPECT_EQ(lab::parse_block_shape("32x32"), (BlockShape{32, 32}));
  EXPECT_EQ(lab::parse_block_shape("128X2"), (BlockShape{128, 2}));
  EXPECT_EQ(lab::parse_block_shape("1x1"), (BlockShape{1, 1}));
  // Over the device's limit, but well formed: the run reports it as an invalid configuration.
  EXPECT_EQ(lab::parse_block_shape("2048x1"), (BlockShape{2048, 1}));
  EXPECT_EQ(lab::parse_block_shape("32x32").label(), "32x32");
}

TEST(BlockShape, RejectsMalformedShapesWithAClearMessage) {
  for (const char* bad : {"0x0", "7", "abc", "32x", "x32", "32x0", "0x32", "-32x2", "32x-2", "32x32x1", "3 2x2",
                          "", "x", "32.5x2", "99999999999x1", "32x32 "}) {
    try {
      lab::parse_block_shape(bad);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + std::string(bad) + "' is not a block shape"), std::string::npos) << what;
      EXPECT_NE(what.find("WIDTHxHEIGHT"), std::string::npos) << what;
    }
  }
}

TEST(BlockShape, ParsesLists) {
  const auto shapes = lab::parse_block_shapes("32x32, 64x2,128x1");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[1], (BlockShape{64, 2}));
  EXPECT_EQ(lab::parse_block_shapes("16x16").size(), 1u);
  for (const char* bad : {"", "32x32,,64x2", "32x32,", ",32x32", " , "}) {
    EXPECT_THROW(lab::parse_block_shapes(bad), std::invalid_argument) << "'" << bad << "'";
  }
  EXPECT_THROW(lab::parse_block_shapes("32x32,0x0"), std::invalid_argument);
}

TEST(BlockShape, SeedListIsTheBooksFifteenShapes) {
  const auto& shapes = lab::seed_block_shapes();
  ASSERT_EQ(shapes.size(), 15u);
  EXPECT_EQ(shapes.front(), (BlockShape{32, 32}));
  EXPECT_EQ(shapes[12], (BlockShape{256, 8}));
  EXPECT_EQ(shapes.back(), (BlockShape{256, 1}));
  std::set<std::string> labels;
  for (const auto& s : shapes) labels.insert(s.label());
  EXPECT_EQ(labels.size(), 15u);
}

TEST(BlockShape, GridsAreTheSeeds) {
  const uint64_t n = 1 << 14;
  EXPECT_EQ(lab::grid_for({32, 32}, n, n).label(), "512x512");
  EXPECT_EQ(lab::grid_for({32, 16}, n, n).label(), "512x1024");
  EXPECT_EQ(lab::grid_for({16, 32}, n, n).label(), "1024x512");
  EXPECT_EQ(lab::grid_for({64, 2}, n, n).label(), "256x8192");
  EXPECT_EQ(lab::grid_for({256, 1}, n, n).label(), "64x16384");
  EXPECT_EQ(lab::grid_for({32, 32}, 1000, 777).label(), "32x25");  // rounded up to cover the edges
}

TEST(BlockShape, LaunchLimits) {
  const auto limits = harness::common_cuda_limits();
  const uint64_t n = 1 << 14;
  const auto over = lab::launch_limit_violation({256, 8}, lab::grid_for({256, 8}, n, n), limits);
  ASSERT_TRUE(over.has_value());
  EXPECT_EQ(*over, "threads per block 2048 > 1024");
  for (const auto& s : lab::seed_block_shapes()) {
    if (s.threads() <= 1024) EXPECT_FALSE(lab::launch_limit_violation(s, lab::grid_for(s, n, n), limits)) << s.label();
  }
  const auto tall = lab::launch_limit_violation({1, 1}, lab::grid_for({1, 1}, 1, 70000), limits);
  ASSERT_TRUE(tall.has_value());
  EXPECT_EQ(*tall, "grid.y 70000 > 65535");
  EXPECT_FALSE(lab::launch_limit_violation({1, 2}, lab::grid_for({1, 2}, 1, 70000), limits));
  auto small = limits;
  small.max_threads_per_block = 512;
  EXPECT_TRUE(lab::launch_limit_violation({32, 32}, {1, 1}, small));
  EXPECT_EQ(*lab::launch_limit_violation({1, 128}, {1, 1}, [&] {
    auto l = limits;
    l.max_block_dim[1] = 64;
    return l;
  }()), "block.y 128 > 64");
}

TEST(BlockShape, MatrixSizeValidation) {
  EXPECT_NO_THROW(lab::validate_matrix_size(1 << 14, 1 << 14));
  EXPECT_NO_THROW(lab::validate_matrix_size(65536, 65535));
  EXPECT_THROW(lab::validate_matrix_size(0, 10), std::invalid_argument);
  EXPECT_THROW(lab::validate_matrix_size(10, 0), std::invalid_argument);
  EXPECT_THROW(lab::validate_matrix_size(65536, 65536), std::invalid_argument);  // 2^32 elements
  EXPECT_THROW(lab::validate_matrix_size(uint64_t(1) << 31, 1), std::invalid_argument);  // NX is an int
}

TEST(BlockShape, ListsReadBackAsTheyAreWritten) {
  const auto& eighty = warpfold::lab::seed_eighty_thread_shapes();
  EXPECT_EQ(warpfold::lab::block_shapes_label(eighty), "80x1,40x2,16x5");
  EXPECT_EQ(warpfold::lab::parse_block_shapes(warpfold::lab::block_shapes_label(eighty)), eighty);
  for (const auto& b : eighty) EXPECT_EQ(b.threads(), 80u);
}
