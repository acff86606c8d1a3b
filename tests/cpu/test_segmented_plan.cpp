// The segmented and axis reductions' plan (detail/segmented_plan.hpp): the classes by length, the
// pieces of long segments, the tiles, the pool, the temp layout, the shape checks and the columns
// split, against brute force where there is one.
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/detail/segmented_plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace warpfold;
using namespace warpfold::detail;

namespace {

constexpr uint64_t kTileItems = uint64_t(kSegmentThreads) * kSegmentInFlight;

TEST(SegmentedPlan, SplitRangeIsTheReducesSplit) {
  for (unsigned bytes : {1u, 2u, 4u, 8u, 16u}) {
    const unsigned vec = 16 / bytes;
    for (uint64_t len : {0ull, 1ull, 2ull, 3ull, 15ull, 16ull, 17ull, 33ull, 1000ull, 4097ull}) {
      for (uint64_t address = 0x1000; address < 0x1000 + 32; address += bytes) {
        const range_split a = split_range(len, address, bytes, vec);
        const reduce_plan b = split_input(len, address, bytes, vec);
        EXPECT_EQ(a.head, b.head) << len << " at " << address;
        EXPECT_EQ(a.vectors, b.vectors) << len << " at " << address;
        EXPECT_EQ(a.tail, b.tail) << len << " at " << address;
        EXPECT_EQ(a.head + a.vectors * vec + a.tail, len);
      }
    }
  }
  const range_split scalar = split_range(77, 0x1004, 12, 1);  // no vector path: every element an item
  EXPECT_EQ(scalar.vectors, 77u);
  EXPECT_EQ(scalar.head + scalar.tail, 0u);
}

TEST(SegmentedPlan, LaneClassesGiveEachLaneAtMostFourElements) {
  EXPECT_EQ(lanes_for_length(0), 1u);
  for (uint64_t len = 1; len <= 128; ++len) {
    const unsigned lanes = lanes_for_length(len);
    ASSERT_NE(lanes, 0u) << len;
    EXPECT_LE(len, uint64_t(kLaneItems) * lanes) << len;
    if (lanes > 1) EXPECT_GT(len, uint64_t(kLaneItems) * (lanes / 2)) << len;  // the narrowest that holds it
  }
  EXPECT_EQ(lanes_for_length(129), 0u);
  EXPECT_EQ(lanes_for_length(~uint64_t(0)), 0u);
}

// The lane code is 1 + log2 of the lanes, for the class and for the kernel's lists alike.
TEST(SegmentedPlan, LaneCodeNamesTheLanes) {
  for (uint64_t len = 1; len <= 128; ++len) {
    const unsigned code = lane_code(len);
    ASSERT_GE(code, 1u) << len;
    ASSERT_LE(code, kLaneClasses) << len;
    EXPECT_EQ(1u << (code - 1), lanes_for_length(len)) << len;
    EXPECT_EQ(slot_code(len, 4), code) << len;
  }
  EXPECT_EQ(lane_code(4), 1u);
  EXPECT_EQ(lane_code(5), 2u);
  EXPECT_EQ(lane_code(65), 6u);
  EXPECT_EQ(lane_code(129), 0u);
  EXPECT_EQ(slot_code(200, 4), kWarpClassCode);
  EXPECT_EQ(slot_code(5000, 4), kBlockClassCode);
  EXPECT_EQ(slot_code(0, 4), 0u);
}

TEST(SegmentedPlan, ClassesByLength) {
  EXPECT_EQ(classify_segment(0, 4), segment_class::empty);
  EXPECT_EQ(classify_segment(1, 4), segment_class::lanes);
  EXPECT_EQ(classify_segment(128, 4), segment_class::lanes);
  EXPECT_EQ(classify_segment(129, 4), segment_class::warp);
  EXPECT_EQ(classify_segment(3072, 4), segment_class::warp);  // 12 KiB of floats
  EXPECT_EQ(classify_segment(3073, 4), segment_class::block);
  EXPECT_EQ(classify_segment(12288, 1), segment_class::warp);
  EXPECT_EQ(classify_segment(12289, 1), segment_class::block);
  EXPECT_EQ(classify_segment(1537, 8), segment_class::block);
  EXPECT_EQ(warp_max_items(64), 192u);
  EXPECT_EQ(classify_segment(193, 64), segment_class::block);
  // Elements of 128 bytes: the warp class would end below the lane classes; it starts past them.
  EXPECT_EQ(warp_max_items(128), 128u);
  EXPECT_EQ(classify_segment(128, 128), segment_class::lanes);
  EXPECT_EQ(classify_segment(129, 128), segment_class::block);
}

TEST(SegmentedPlan, BitWidthCountsTheBits) {
  EXPECT_EQ(bit_width32(0), 0u);
  EXPECT_EQ(bit_width32(1), 1u);
  EXPECT_EQ(bit_width32(31), 5u);
  EXPECT_EQ(bit_width32(32), 6u);
  EXPECT_EQ(bit_width32(~0u), 32u);
  for (unsigned b = 0; b < 32; ++b) {
    EXPECT_EQ(bit_width32(1u << b), b + 1) << b;
    EXPECT_EQ(bit_width32((1u << b) | ((1u << b) - 1)), b + 1) << b;
  }
}

// The code, by the classes' rule spelled out (the narrowest group of lanes that holds the
// segment at kLaneItems each, then a warp up to kWarpMaxBytes, then a block), at every element
// size; the class is the code's.
TEST(SegmentedPlan, SlotCodeFollowsTheClassesRule) {
  const auto expected = [](uint64_t len, unsigned bytes) -> unsigned {
    if (len == 0) return 0;
    for (unsigned lanes = 1, code = 1; lanes <= kMaxLaneGroup; lanes *= 2, ++code) {
      if (len <= uint64_t(lanes) * kLaneItems) return code;
    }
    return len <= std::max<uint64_t>(kWarpMaxBytes / bytes, kLaneItems * kMaxLaneGroup) ? kWarpClassCode
                                                                                      : kBlockClassCode;
  };
  std::vector<uint64_t> lengths;
  for (uint64_t len = 0; len <= 13000; ++len) lengths.push_back(len);
  for (uint64_t big : {uint64_t(1) << 31, uint64_t(1) << 32, (uint64_t(1) << 32) + 1, (uint64_t(1) << 32) + 5,
                       uint64_t(1) << 40, ~uint64_t(0)}) {
    lengths.push_back(big);
  }
  for (unsigned bytes : {1u, 2u, 4u, 8u, 16u, 64u, 128u}) {
    for (uint64_t len : lengths) {
      ASSERT_EQ(unsigned(slot_code(len, bytes)), expected(len, bytes)) << len << " of " << bytes;
      const segment_class by_rule = len == 0                           ? segment_class::empty
                                    : len <= kLaneItems * kMaxLaneGroup ? segment_class::lanes
                                    : expected(len, bytes) == kWarpClassCode ? segment_class::warp
                                                                             : segment_class::block;
      ASSERT_EQ(classify_segment(len, bytes), by_rule) << len << " of " << bytes;
    }
  }
  EXPECT_EQ(class_of_code(0), segment_class::empty);
  for (unsigned code = 1; code <= kLaneClasses; ++code) EXPECT_EQ(class_of_code(uint8_t(code)), segment_class::lanes);
  EXPECT_EQ(class_of_code(kWarpClassCode), segment_class::warp);
  EXPECT_EQ(class_of_code(kBlockClassCode), segment_class::block);
  EXPECT_EQ(slot_code(0, 4), 0u);
  EXPECT_EQ(slot_code(4, 4), 1u);
  EXPECT_EQ(slot_code(8, 4), 2u);
  EXPECT_EQ(slot_code(128, 4), 6u);
  EXPECT_EQ(slot_code(129, 4), kWarpClassCode);
  EXPECT_EQ(slot_code(3073, 4), kBlockClassCode);
}

TEST(SegmentedPlan, PiecesOfLongSegments) {
  const uint64_t little = 1;  // a call whose work is small: pieces of kPieceMinTiles
  EXPECT_EQ(pieces_for(0, kTileItems, 660, little), 1u);
  EXPECT_EQ(pieces_for(5 * kTileItems, kTileItems, 660, little), 1u);       // under 1.5·kPieceMinTiles tiles: one
  EXPECT_EQ(pieces_for(5 * kTileItems + 1, kTileItems, 660, little), 2u);   // 6 tiles: two of three
  EXPECT_EQ(pieces_for(9 * kTileItems, kTileItems, 660, little), 2u);       // 9 tiles: two, not three of three
  EXPECT_EQ(pieces_for(256 * kTileItems, kTileItems, 660, little), 64u);    // 2^20 floats: 64 pieces of 4 tiles
  EXPECT_EQ(pieces_for(uint64_t(1) << 40, kTileItems, 660, little), 660u);  // at most the grid
  // Every piece, and every segment read whole, holds 3/4 to 3/2 of a piece's tiles (the last
  // partial tile counted whole).
  for (uint64_t work : {little, uint64_t(1) << 14, ~uint64_t(0)}) {
    const uint64_t per_piece = uint64_t(1) << piece_tiles_log2(work, 1u << 20);
    for (uint64_t tiles = 1; tiles < 40 * per_piece; ++tiles) {
      const uint64_t pieces = pieces_for(tiles * kTileItems, kTileItems, 1u << 20, work);
      EXPECT_LT(2 * tiles, 3 * per_piece * pieces) << tiles << " tiles, pieces of " << per_piece;
      if (pieces > 1) EXPECT_GE(4 * tiles, 3 * per_piece * pieces) << tiles << " tiles, pieces of " << per_piece;
    }
  }
}

// Pieces grow from kPieceMinTiles to kPieceMaxTiles tiles, by powers of two, while every block
// still gets a piece of the call's work; a call that does not know its total counts its
// segments as long as this one.
TEST(SegmentedPlan, PieceSizeFollowsTheCallsWork) {
  EXPECT_EQ(piece_tiles_log2(0, 528), kPieceMinTilesLog2);
  EXPECT_EQ(piece_tiles_log2(528 * 8 - 1, 528), 2u);
  EXPECT_EQ(piece_tiles_log2(528 * 8, 528), 3u);
  EXPECT_EQ(piece_tiles_log2(528 * 16, 528), 4u);
  EXPECT_EQ(piece_tiles_log2(~uint64_t(0), 528), kPieceMaxTilesLog2);
  EXPECT_EQ(piece_tiles_log2(100, 0), kPieceMaxTilesLog2);  // no grid: nothing to keep busy
  // 64 segments of 2^20 floats (256 tiles): 16 pieces of 16 tiles; 64 of 2^16 (16 tiles): 4 of 4.
  EXPECT_EQ(pieces_for(uint64_t(1) << 18, kTileItems, 528, work_tiles_of(~uint64_t(0), 64, 256)), 16u);
  EXPECT_EQ(pieces_for(uint64_t(1) << 14, kTileItems, 528, work_tiles_of(~uint64_t(0), 64, 16)), 4u);
  EXPECT_EQ(work_tiles_of(1000, 64, 256), 1000u);  // the known total wins where it is smaller
  EXPECT_EQ(work_tiles_of(~uint64_t(0), uint64_t(1) << 40, uint64_t(1) << 30), uint64_t(1) << 61);  // capped
  EXPECT_EQ(work_tiles_of(~uint64_t(0), 5, 0), 0u);
}

TEST(SegmentedPlan, TileSizeGivesEachBlockOneTileWhereItCan) {
  EXPECT_EQ(tile_segments(uint64_t(1) << 24, 660), kMaxTileSegments);
  EXPECT_EQ(tile_segments(1000, 660), 2u);
  EXPECT_EQ(tile_segments(660, 660), 1u);
  EXPECT_EQ(tile_segments(661, 660), 2u);
  EXPECT_EQ(tile_segments(1, 660), 1u);
  EXPECT_EQ(tile_segments(uint64_t(1) << 16, 660), 100u);
  EXPECT_EQ(tile_segments(10923, 528), 21u);  // 521 tiles: a power of two (32) would leave 186 blocks without one
  EXPECT_EQ(tile_segments(5, 0), 5u);          // no grid: taken as one block
  for (uint64_t segments : {uint64_t(1) << 12, uint64_t(52000), uint64_t(660) * kMaxTileSegments}) {
    const unsigned k = tile_segments(segments, 660);
    EXPECT_LE(ceil_div(segments, k), 660u) << "one round of tiles: " << segments;
    if (k > 1) EXPECT_GT(ceil_div(segments, k - 1), 660u) << "the smallest such tile: " << segments;
  }
}

TEST(SegmentedPlan, TileSizeEvensOutSeveralRounds) {
  // 1.15 M segments on 528 blocks: full tiles would make 1125, a third round for 69 blocks; tiles
  // of 736 make three rounds of 528, less 20 tiles.
  EXPECT_EQ(tile_segments(1151000, 528), 736u);
  EXPECT_EQ(ceil_div(1151000, 736), 1564u);
  // Where full tiles already fill their last round, the tiles stay full.
  EXPECT_EQ(tile_segments(uint64_t(1) << 24, 528), kMaxTileSegments);  // 31.03 rounds
  EXPECT_EQ(tile_segments(uint64_t(1) << 20, 528), kMaxTileSegments);  // 1.94 rounds
  EXPECT_EQ(tile_segments(528 * 2 * 768, 528), 768u);                    // two rounds of exactly 768
  for (uint64_t grid : {1u, 132u, 528u, 660u}) {
    // Counts that fill their rounds with a whole number of steps exactly, and counts between.
    for (uint64_t segments : {grid * kMaxTileSegments + 1, grid * 2 * 768, grid * 2 * 768 + 1, grid * 3 * 992,
                              grid * 2 * kMaxTileSegments, uint64_t(1) << 20, uint64_t(1474000), uint64_t(3) << 30}) {
      if (segments <= grid * kMaxTileSegments) continue;
      const uint64_t rounds = ceil_div(segments, grid * kMaxTileSegments);
      const unsigned k = tile_segments(segments, unsigned(grid));
      EXPECT_EQ(k % kTileSegmentsStep, 0u) << segments << " on " << grid;
      EXPECT_LE(k, kMaxTileSegments);
      EXPECT_LE(ceil_div(segments, k), rounds * grid) << "no more rounds than full tiles: " << segments;
      if (k > kTileSegmentsStep) {
        EXPECT_GT(ceil_div(segments, k - kTileSegmentsStep), rounds * grid) << "the smallest such tile: " << segments;
      }
    }
  }
}

// A call of few segments that knows its total: a warp for each segment, and one round of units
// for any block-class segments the total can hold (each longer than three quarters of a tile),
// on no more blocks than the device holds.
TEST(SegmentedPlan, FewSegmentsGridHoldsEveryWarpAndOneRoundOfUnits) {
  EXPECT_EQ(few_segments_grid(1000, 16, 528), 125u);  // 1000 segments of 64 floats: their warps
  EXPECT_EQ(few_segments_grid(100, 50, 528), 100u);   // two blocks per tile of the input
  EXPECT_EQ(few_segments_grid(1000, 733, 528), 528u);
  EXPECT_EQ(few_segments_grid(1024, ~uint64_t(0) / 4, 528), 528u);
  EXPECT_EQ(few_segments_grid(1, 0, 528), 1u);  // only empty segments
  EXPECT_EQ(few_segments_grid(1024, 0, 40), 40u);
  std::mt19937_64 gen(7);
  const uint64_t warp_max_vectors = warp_max_items(sizeof(float)) / 4;
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned blocks = 1 + unsigned(gen() % 700);
    const uint64_t total = gen() % (uint64_t(1) << (10 + gen() % 14));  // in vectors of 4 floats
    const uint64_t total_tiles = ceil_div(total, kTileItems);
    const uint64_t segments = 1 + gen() % kMaxTileSegments;
    const unsigned grid = few_segments_grid(segments, total_tiles, blocks);
    ASSERT_GE(grid, 1u);
    ASSERT_LE(grid, blocks);
    if (grid == blocks) continue;
    ASSERT_GE(uint64_t(grid) * kSegmentWarps, segments);
    // Block-class segments laid end to end within the total, and the units they cost.
    uint64_t left = total, units = 0;
    for (uint64_t k = 0; k < segments && left > warp_max_vectors; ++k) {
      const uint64_t len = warp_max_vectors + 1 + gen() % (gen() % 2 ? left - warp_max_vectors : 4 * kTileItems);
      const uint64_t taken = len < left ? len : left;
      units += pieces_for(taken, kTileItems, blocks, work_tiles_of(total_tiles, segments, ceil_div(taken, kTileItems)));
      left -= taken;
    }
    ASSERT_LE(units, grid) << segments << " segments, " << total << " vectors, on " << blocks;
  }
}

TEST(SegmentedPlan, TilesThroughBlockCountTheTilesOfTheBlocksBefore) {
  for (uint64_t grid : {1u, 3u, 132u, 660u}) {
    for (uint64_t tiles : {1ull, 2ull, 131ull, 660ull, 661ull, 5000ull}) {
      uint64_t count = 0;
      for (uint64_t b = 0; b < grid; ++b) {
        for (uint64_t t = b; t < tiles; t += grid) ++count;
        ASSERT_EQ(tiles_through_block(b, tiles, grid), count) << "block " << b << " of " << grid << ", " << tiles;
      }
      EXPECT_EQ(count, tiles);
    }
  }
}

// Whatever the long segments of a total of `items` items, their pieces fit the pool sized from it.
TEST(SegmentedPlan, PoolFromTheTotalHoldsEveryLongSegment) {
  std::mt19937_64 gen(7);
  const uint64_t max_pieces = 660;
  for (int round = 0; round < 200; ++round) {
    const uint64_t items = (gen() % (uint64_t(1) << 30)) + 1;
    const uint64_t pool = pool_pieces(true, items, kTileItems, max_pieces);
    uint64_t left = items, pieces = 0;
    while (left > 0) {  // random lengths, long and short, summing to the total
      const uint64_t len = std::min<uint64_t>(left, (gen() % 3 == 0) ? gen() % (64 * kTileItems) : gen() % (left + 1) + 1);
      const uint64_t p = pieces_for(len, kTileItems, max_pieces, gen() % 2 ? ~uint64_t(0) : items / kTileItems);
      if (p >= 2) pieces += p;
      left -= len;
    }
    ASSERT_LE(pieces, pool) << items;
  }
  EXPECT_EQ(pool_pieces(false, 0, kTileItems, 660), uint64_t(kPoolSplits) * 660);
  EXPECT_EQ(pool_pieces(true, 10, kTileItems, 660), 660u);  // never below one segment's pieces
  EXPECT_EQ(pool_pieces(true, ~uint64_t(0), kTileItems, 660), uint64_t(1) << 30);
}

// Rows the host can cut alike: block-class, the same pieces at every alignment of their items
// (floats: 4 per vector, a head of 0 to 3), and room for every row's pieces and arrivals.
TEST(SegmentedPlan, AlikeRowsAreBlockClassAndCutTheSameAtEveryAlignment) {
  const auto alike = [](uint64_t rows, uint64_t len, unsigned grid = 528, uint64_t pool_cap = ~uint64_t(0)) {
    const uint64_t items = rows * len / 4;
    const uint64_t pool = std::min(pool_cap, pool_pieces(true, items, kTileItems, grid));
    return alike_row_pieces(rows, len, 4, 4, kTileItems, grid, ceil_div(items, kTileItems), layout_segments(pool, 1));
  };
  EXPECT_EQ(alike(4096, 1024), 0u);  // warp class
  EXPECT_EQ(alike(0, 8192), 0u);
  EXPECT_EQ(alike(2048, 3072), 0u);  // the longest warp-class row
  EXPECT_EQ(alike(2048, 3073), 1u);  // the shortest block-class row: whole
  EXPECT_EQ(alike(8192, 8192), 1u);
  EXPECT_EQ(alike(64, 1 << 16), 4u);         // 16 tiles in 4 pieces of 4
  EXPECT_EQ(alike(1, uint64_t(1) << 26), 528u);  // at most the grid
  EXPECT_EQ(alike(4, uint64_t(1) << 24), 256u);  // 4096 tiles in pieces of 16
  // 5 tiles and one vector: 6 tiles (2 pieces) from a vector boundary, 5 (1 piece) from elsewhere.
  const uint64_t five_tiles = 5 * kTileItems * 4;
  EXPECT_EQ(alike(1, five_tiles + 4), 0u);
  EXPECT_EQ(alike(1, five_tiles), 1u);
  EXPECT_EQ(alike(1, five_tiles + 7), 2u);  // a vector more than 5 tiles at every head
  EXPECT_EQ(alike(64, 1 << 16, 528, 64 * 4 - 1), 0u);  // a pool short of one piece: the tiled path
  for (uint64_t rows : {1ull, 3ull, 64ull, 1000ull}) {
    for (uint64_t len : {1025ull, 4097ull, 32771ull, 1ull << 17, (1ull << 20) + 5}) {
      const uint64_t pieces = alike(rows, len);
      if (pieces == 0) continue;
      for (uint64_t head = 0; head < 4; ++head) {
        const uint64_t vectors = (len - head) / 4;
        EXPECT_EQ(pieces_for(vectors, kTileItems, 528,
                             work_tiles_of(ceil_div(rows * len / 4, kTileItems), rows, ceil_div(vectors, kTileItems))),
                  pieces)
            << rows << " rows of " << len << ", head " << head;
      }
    }
  }
}

TEST(SegmentedPlan, LayoutPlacesEntriesThenPool) {
  const segments_layout l = layout_segments(100, 2);
  EXPECT_EQ(l.entries_word, kSegmentCounterWords);
  EXPECT_EQ(l.max_entries, 51u);
  EXPECT_EQ(l.pool_word, kSegmentCounterWords + 51u * kEntryWords);
  EXPECT_EQ(l.words, l.pool_word + 200);
  EXPECT_GT(kSegmentCounterWords, kPoolUsedWord);
}

TEST(SegmentedPlan, ShapesThatOverflowAreRefused) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(check_axis_shape(axis_shape::contiguous(1000, 1000, 7), 4), axis_problem::none);
  EXPECT_EQ(check_axis_shape(axis_shape{0, 5, 5, 1, 1, 1}, 4), axis_problem::none);  // no outputs
  EXPECT_EQ(check_axis_shape(axis_shape{5, 0, 5, kMax, kMax, kMax}, 4), axis_problem::none);  // nothing read
  EXPECT_EQ(check_axis_shape(axis_shape{1ull << 40, 1, 1ull << 40, 1, 1, 1}, 4), axis_problem::overflow);
  EXPECT_EQ(check_axis_shape(axis_shape{1ull << 32, 1ull << 32, 1, 1, 1, 1}, 1), axis_problem::overflow);  // 2^64 elements
  EXPECT_EQ(check_axis_shape(axis_shape{3, 3, 1, kMax / 2 + 1, 1, 1}, 1), axis_problem::overflow);
  EXPECT_EQ(check_axis_shape(axis_shape{2, 2, 1, std::numeric_limits<int64_t>::min(), 1, 1}, 1), axis_problem::overflow);
  EXPECT_EQ(check_axis_shape(axis_shape{2, 2, 1, -(kMax / 8 - 1), 1, 1}, 8), axis_problem::none);
  EXPECT_EQ(check_axis_shape(axis_shape{2, 2, 1, kMax / 8 + 1, 1, 1}, 8), axis_problem::overflow);  // in bytes
  EXPECT_EQ(check_axis_shape(axis_shape{2, 2, 2, kMax / 2, kMax / 2, 2}, 1), axis_problem::overflow);  // the sum
  // contiguous() saturates a row stride beyond 64 bits, so that the shape is refused, not wrapped.
  EXPECT_EQ(check_axis_shape(axis_shape::contiguous(2, 1ull << 40, 1ull << 40), 1), axis_problem::overflow);
}

TEST(SegmentedPlan, AxisPathFollowsTheUnitStride) {
  EXPECT_EQ(choose_axis_path(axis_shape::contiguous(100, 100, 1)), axis_path::rows);
  EXPECT_EQ(choose_axis_path(axis_shape::contiguous(1, 100, 100)), axis_path::columns);
  EXPECT_EQ(choose_axis_path(axis_shape{1, 100, 50, 0, 1, 100}), axis_path::rows);         // x.T.sum(0)
  EXPECT_EQ(choose_axis_path(axis_shape{100, 50, 1, 100, 2, 1}), axis_path::strided_rows);  // x[:, ::2].sum(1)
  EXPECT_EQ(choose_axis_path(axis_shape{4, 10, 10, 1000, 100, 3}), axis_path::strided_rows);
}

TEST(SegmentedPlan, ContiguousShapesOfNdTensors) {
  const uint64_t sizes[] = {2, 3, 5, 7};
  const axis_shape d1 = contiguous_axis_shape(sizes, 4, 1, 1);
  EXPECT_EQ(d1.outer, 2u);
  EXPECT_EQ(d1.axis, 3u);
  EXPECT_EQ(d1.inner, 35u);
  EXPECT_EQ(d1.outer_stride, 105);
  EXPECT_EQ(d1.axis_stride, 35);
  EXPECT_EQ(d1.inner_stride, 1);
  const axis_shape merged = contiguous_axis_shape(sizes, 4, 1, 2);
  EXPECT_EQ(merged.axis, 15u);
  EXPECT_EQ(merged.inner, 7u);
  const axis_shape last = contiguous_axis_shape(sizes, 4, 3, 3);
  EXPECT_EQ(last.outer, 30u);
  EXPECT_EQ(last.inner, 1u);
  EXPECT_EQ(contiguous_axis_shape(sizes, 4, 2, 1).outer, 0u);  // out of range: empty
}

TEST(SegmentedPlan, ColumnChunksKeepTheGridBusyInFewRounds) {
  for (unsigned grid : {264u, 660u}) {
    for (uint64_t strip_units = 1; strip_units <= 5000; ++strip_units) {
      const uint64_t chunks = column_chunks(strip_units, grid, ~uint64_t(0));
      const uint64_t units = chunks * strip_units, rounds = (units + grid - 1) / grid;
      const uint64_t fewest = (strip_units + grid - 1) / grid;
      EXPECT_GE(chunks, 1u);
      EXPECT_LE(rounds, fewest + kColumnExtraRounds);
      EXPECT_GE(4 * units, 3 * rounds * grid) << strip_units << " strip units on " << grid;  // 3/4 busy, at least
    }
    // Where the axis allows few chunks, the count stays within it.
    EXPECT_EQ(column_chunks(3, grid, 2), 2u);
    EXPECT_EQ(column_chunks(1, grid, 1), 1u);
  }
}

TEST(SegmentedPlan, PlainColumnsGridSplitsLongUnitsEvenly) {
  for (unsigned blocks : {264u, 396u, 528u}) {
    for (uint64_t axis : {4ull, 8ull, 15ull, 16ull, 64ull, 256ull}) {
      for (uint64_t inner : {1ull << 12, 1ull << 16, 3ull << 17, 1ull << 20, 1ull << 23}) {
        const column_plan p = plan_columns(1, axis, inner, blocks, 4);
        if (p.chunks != 1) continue;
        const unsigned grid = plain_columns_grid(p, blocks);
        EXPECT_GE(grid, 1u);
        EXPECT_LE(grid, blocks);
        EXPECT_LE(grid, p.units);
        if (p.units <= blocks) {
          EXPECT_EQ(grid, p.units);  // one round, a block per unit
        } else if (warp_loads_per_unit(p) < 2 * kColumnUnroll) {
          EXPECT_EQ(grid, blocks);  // short units: every block
        } else {
          // As many rounds as two thirds of the blocks would run, and no block idle in the last.
          const uint64_t fewer = blocks * 2 / 3, rounds = (p.units + grid - 1) / grid;
          EXPECT_EQ(rounds, (p.units + fewer - 1) / fewer) << axis << " x " << inner << " on " << blocks;
          EXPECT_GT(p.units, (rounds - 1) * grid);
          EXPECT_LT(rounds * grid - p.units, rounds);  // the blocks one unit short: fewer than the rounds
        }
      }
    }
  }
  // x.sum(dim=0) of 64 x 2^20 floats on 396 blocks: 1024 units in 4 rounds of 256 blocks.
  const column_plan rows64 = plan_columns(1, 64, uint64_t(1) << 20, 396, 4);
  EXPECT_EQ(rows64.units, 1024u);
  EXPECT_EQ(plain_columns_grid(rows64, 396), 256u);
  // 8 rows: one round of loads per unit, every block.
  EXPECT_EQ(plain_columns_grid(plan_columns(1, 8, uint64_t(1) << 23, 396, 4), 396), 396u);
}

TEST(SegmentedPlan, ColumnChunksCoverTheAxis) {
  for (unsigned vec : {1u, 4u}) {
    for (uint64_t inner : {2ull, 3ull, 5ull, 31ull, 32ull, 33ull, 1000ull, 4096ull}) {
      if (inner % vec != 0) continue;
      for (uint64_t axis : {0ull, 1ull, 7ull, 100ull, 1000ull, 1ull << 24}) {
        for (uint64_t outer : {1ull, 3ull, 4096ull}) {
          const column_plan p = plan_columns(outer, axis, inner, 660, vec);
          const uint64_t lanes = (inner + vec - 1) / vec;
          EXPECT_EQ(p.width, lanes < 32 ? lanes : 32u);
          EXPECT_EQ(p.rows_per_load, 32 / p.width);
          EXPECT_LE(p.width * p.rows_per_load, 32u);
          const uint64_t columns = p.columns_per_strip();
          EXPECT_TRUE(p.strips * columns >= inner && (p.strips - 1) * columns < inner);
          // The unit's warps: every strip of a group gets warps_per_strip of them.
          EXPECT_EQ(p.warps_per_strip * p.strips_per_unit, kSegmentWarps);
          EXPECT_EQ(p.groups, (p.strips + p.strips_per_unit - 1) / p.strips_per_unit);
          // A warp shares a strip only when each warp still gets a whole round of loads.
          // and only while the units of whole strips with half as many warps would not fill the grid.
          if (p.warps_per_strip > 1) {
            EXPECT_GE(axis, uint64_t(p.warps_per_strip) * p.rows_per_load * kColumnUnroll);
            EXPECT_LT(outer * ((p.strips * (p.warps_per_strip / 2) + kSegmentWarps - 1) / kSegmentWarps), 660u);
          }
          EXPECT_EQ(p.units, outer * p.groups * p.chunks);
          if (axis == 0) {
            EXPECT_EQ(p.chunks, 1u);
          } else {
            EXPECT_GE(p.chunks * p.rows_per_chunk, axis);        // every row in a chunk
            EXPECT_LT((p.chunks - 1) * p.rows_per_chunk, axis);  // and no chunk empty
          }
          if (p.chunks > 1) EXPECT_EQ(p.strips_per_unit, 1u);  // chunks combine per strip
          // The chunk sets: every chunk in one, none empty, one set while one block folds them all.
          uint64_t in_sets = 0;
          for (uint64_t k = 0; k < p.chunk_sets; ++k) {
            EXPECT_GE(p.chunks_in_set(k), 1u);
            in_sets += p.chunks_in_set(k);
          }
          EXPECT_EQ(in_sets, p.chunks);
          const bool one_step = p.chunks * columns <= kColumnOneSetPartials;
          if (one_step) EXPECT_EQ(p.chunk_sets, 1u);
          EXPECT_LE(p.chunks_per_set * p.chunks_per_set, one_step ? p.chunks * p.chunks : 2 * p.chunks);
          // Chunks only where a strip takes every warp, and no more rounds of the grid than the
          // strips need plus kColumnExtraRounds.
          if (p.chunks > 1) {
            EXPECT_EQ(p.warps_per_strip, kSegmentWarps);
            EXPECT_LE((p.units + 659) / 660, (outer * p.groups + 659) / 660 + kColumnExtraRounds);
          }
          const columns_layout l = layout_columns(p, outer, 2);
          if (p.chunks > 1) {
            const uint64_t sets = p.chunk_sets;
            EXPECT_EQ(l.words, kSegmentCounterWords + outer * p.strips * (1 + sets + (p.chunks + sets) * columns * 2));
          } else {
            EXPECT_EQ(l.words, kSegmentCounterWords);
          }
        }
      }
    }
  }
  // Few wide columns over a long axis: the axis is cut so that every block of the grid has a unit.
  EXPECT_EQ(plan_columns(1, uint64_t(1) << 24, 4, 660).units, 660u);
  // 64 strips on 264 blocks: four chunks each, one round with 8 blocks idle.
  EXPECT_EQ(plan_columns(1, 8192, 8192, 264, 4).chunks, 4u);
  // Thousands of chunks fold in two steps of about √chunks each.
  const column_plan narrow = plan_columns(1, uint64_t(1) << 24, 64, 2112, 4);
  EXPECT_EQ(narrow.chunks, 2112u);
  EXPECT_EQ(narrow.chunks_per_set, 46u);
  EXPECT_EQ(narrow.chunk_sets, 46u);
  // A plan that cuts the axis is made for the chunked kernel's grid; one that does not, for the
  // plain kernel's.
  const column_plan chunked = plan_columns_for(1, uint64_t(1) << 20, 64, 4, 396, 264);
  EXPECT_EQ(chunked.units, plan_columns(1, uint64_t(1) << 20, 64, 264, 4).units);
  EXPECT_EQ(chunked.units, 264u);
  // 64 × 2^20: 8192 strips fill 396 blocks with a warp on each strip, no barriers.
  EXPECT_EQ(plan_columns(1, 64, uint64_t(1) << 20, 396, 4).warps_per_strip, 1u);
  const column_plan plain = plan_columns_for(64, 64, uint64_t(1) << 20, 4, 396, 264);
  EXPECT_EQ(plain.chunks, 1u);
  EXPECT_EQ(plain.units, plan_columns(64, 64, uint64_t(1) << 20, 396, 4).units);
  // A short axis under wide rows: one warp per strip, eight strips per unit.
  const column_plan wide = plan_columns(1, 4, uint64_t(1) << 24, 660, 4);
  EXPECT_EQ(wide.warps_per_strip, 1u);
  EXPECT_EQ(wide.columns_per_strip(), 128u);
}

}  // namespace
