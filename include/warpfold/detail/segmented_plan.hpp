#pragma once
// How the segmented and axis reductions split their work: pure host and device arithmetic,
// unit-tested on the CPU. docs/segmented.md explains each regime; the values here are the knobs
// its measurements tune.
//
// A segment is reduced by the smallest team that keeps its loads in flight, chosen from its own
// length (so its fold order depends on its length and alignment only):
//   alone  up to 8 elements (alone_max_code): the thread that reads the segment's offsets;
//   lanes  up to kLaneItems elements per lane: 4, 8, 16 or 32 lanes of a warp;
//   warp   up to kWarpMaxBytes: a warp, 16-byte vectors;
//   block  a block, tiles of 16-byte vectors; from one and a half pieces' tiles on (pieces of
//          about 4 to 16 tiles, by the call's size), the segment is *long*: cut into pieces
//          (tiles p, p + P, p + 2P, ... of it, as reduce's blocks cut its input), which any block
//          of the grid may take, combined per segment.

#include <warpfold/detail/reduce_policy.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace warpfold {

// A strided tensor seen as [outer][axis][inner], reduced over the axis into [outer][inner]
// (reduce_axis.cuh). Strides count elements and may be negative; element (o, a, i) is
// d_in[o * outer_stride + a * axis_stride + i * inner_stride].
struct axis_shape {
  uint64_t outer = 1, axis = 0, inner = 1;
  int64_t outer_stride = 0, axis_stride = 1, inner_stride = 1;

  // A contiguous [outer][axis][inner] tensor. Strides that do not fit in 64 bits are saturated,
  // so that the reduction refuses the shape (cudaErrorInvalidValue) rather than wrap.
  static constexpr axis_shape contiguous(uint64_t outer, uint64_t axis, uint64_t inner) {
    const uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
    const uint64_t row = (inner != 0 && axis > kMax / inner) ? kMax : axis * inner;
    return {outer, axis, inner, int64_t(row > kMax ? kMax : row), int64_t(inner > kMax ? kMax : inner), 1};
  }
};

// The shape of reducing dims first_dim … last_dim of a contiguous (row-major) tensor of `rank`
// dims: the dims before them make the outer extent, those after the inner one. Dims out of range
// give an empty shape (outer = inner = 0); extents beyond 64 bits saturate, and the reduction
// refuses the shape.
inline axis_shape contiguous_axis_shape(const uint64_t* sizes, int rank, int first_dim, int last_dim) {
  if (first_dim < 0 || last_dim < first_dim || last_dim >= rank) return axis_shape{0, 0, 0, 0, 0, 0};
  const auto product = [&](int from, int to) {
    uint64_t p = 1;
    for (int d = from; d < to; ++d) p = (sizes[d] != 0 && p > ~uint64_t(0) / sizes[d]) ? ~uint64_t(0) : p * sizes[d];
    return p;
  };
  return axis_shape::contiguous(product(0, first_dim), product(first_dim, last_dim + 1), product(last_dim + 1, rank));
}

}  // namespace warpfold

namespace warpfold::detail {

// --- the segments kernel's policy ------------------------------------------------------------
inline constexpr unsigned kSegmentThreads = kThreads;                     // per block
inline constexpr unsigned kSegmentWarps = kSegmentThreads / 32;
inline constexpr unsigned kSegmentMinBlocks = 4;     // resident blocks per SM the segments kernel's registers allow, at least
inline constexpr unsigned kSegmentInFlight = kHopperPolicy.narrow_vectors;  // vectors per thread per tile
inline constexpr unsigned kLaneItems = 4;            // elements per lane in the lane classes
inline constexpr unsigned kLaneBatch = 2;            // segments in flight per lane group
inline constexpr unsigned kMaxLaneGroup = 32;        // the widest lane class: a warp, several segments in flight
inline constexpr unsigned kWarpMaxBytes = 12288;     // the warp class, up to this many bytes
inline constexpr unsigned kPieceMinTilesLog2 = 2;    // a long segment's piece size in tiles, at least: 4
inline constexpr unsigned kPieceMaxTilesLog2 = 4;    // at most: 16, where the call's work fills the grid anyway
static_assert(kPieceMinTilesLog2 >= 1, "pieces_for rounds to the nearest piece: half a piece is whole tiles");
inline constexpr unsigned kPieceMinTiles = 1u << kPieceMinTilesLog2;
inline constexpr unsigned kPieceMaxTiles = 1u << kPieceMaxTilesLog2;
inline constexpr unsigned kMaxTileSegments = 1024;   // segments one block loads at once
inline constexpr unsigned kTileSegmentsStep = 32;    // tiles of several rounds: whole lines of offsets
static_assert(kMaxTileSegments % kTileSegmentsStep == 0, "a full tile is a whole number of steps");
inline constexpr unsigned kHelperPollNs = 500;       // pause between an idle block's polls
inline constexpr unsigned kPoolSplits = 32;          // long segments split grid-wide at once, without the input's length
// Calls with offsets of at least kFlatMinSegments segments take the flat kernel
// (segmented_flat.cuh) for every segment of up to kFlatMax elements, then the segments kernel for
// the longer ones. With fewer segments a second launch costs more than the flat fold saves, and
// the flat kernel's groups of 32 segments would not fill the device's warps; longer segments
// would make a group's span too long for one warp.
inline constexpr uint64_t kFlatMinSegments = uint64_t(1) << 17;
inline constexpr uint64_t kFlatMax = 512;
inline constexpr unsigned kFlatAloneMax = 8;  // folded by the lane that reads the offsets
// The columns kernel's policy.
inline constexpr unsigned kColumnUnroll = 8;         // rows per lane in flight
inline constexpr unsigned kColumnExtraRounds = 3;    // rounds of the grid beyond the fewest, tried for balance
inline constexpr unsigned kColumnBusyTenths = 9;     // the share of busy blocks a plan's rounds settle for
inline constexpr unsigned kColumnOneSetPartials = 8 * kSegmentThreads;  // a strip's partials up to this many fold in one step

static_assert(kSegmentThreads >= 32 * 8 && kMaxTileSegments % kSegmentThreads == 0,
              "a tile's segments are loaded kMaxTileSegments / threads per thread");

WARPFOLD_HOST_DEVICE constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// --- one segment -------------------------------------------------------------------------------

// A range of len elements of elem_bytes at `address` (a multiple of elem_bytes), read as a scalar
// head (elements before the first 16-byte boundary), vec_elems-element vectors, and a scalar tail.
// vec_elems = 1: no vectors, every element is an item. (reduce_plan.hpp's split_input, callable
// on the device; a CPU test holds the two equal.)
struct range_split {
  uint64_t head = 0, vectors = 0, tail = 0;
};
WARPFOLD_HOST_DEVICE constexpr range_split split_range(uint64_t len, uint64_t address, unsigned elem_bytes,
                                                       unsigned vec_elems) {
  range_split r{};
  if (vec_elems > 1) {
    const uint64_t vec_bytes = uint64_t(elem_bytes) * vec_elems;
    const uint64_t misalign = address % vec_bytes;
    const uint64_t to_boundary = misalign ? (vec_bytes - misalign) / elem_bytes : 0;
    r.head = to_boundary < len ? to_boundary : len;
    r.vectors = (len - r.head) / vec_elems;
    r.tail = len - r.head - r.vectors * vec_elems;
  } else {
    r.vectors = len;
  }
  return r;
}

enum class segment_class : unsigned { empty, lanes, warp, block };

// The bits x needs (0 for 0): one instruction on the device (count leading zeros), a loop on the
// host and at compile time (__clz is not constexpr).
WARPFOLD_HOST_DEVICE constexpr unsigned bit_width32(unsigned x) {
#ifdef __CUDA_ARCH__
  if (!__builtin_is_constant_evaluated()) return 32u - unsigned(__clz(int(x)));
#endif
  unsigned bits = 0;
  for (; x != 0; x >>= 1) ++bits;
  return bits;
}

// The lane class of a segment of len elements as 1 + log2(lanes), lanes the narrowest group of
// 1, 2, 4, 8, 16 or 32 whose lanes read at most kLaneItems elements each; 0 when it needs more.
// A closed form, not a loop: the segments kernel classifies every segment.
WARPFOLD_HOST_DEVICE constexpr unsigned lane_code(uint64_t len) {
  if (len > uint64_t(kLaneItems) * kMaxLaneGroup) return 0;
  const unsigned beyond_one = len == 0 ? 0u : unsigned(len - 1) / kLaneItems;  // lanes needed, less one
  return 1u + bit_width32(beyond_one);  // lanes: the least power of two above beyond_one
}

// The lanes that reduce a segment of len elements in the lane classes, or 0 when it needs more.
WARPFOLD_HOST_DEVICE constexpr unsigned lanes_for_length(uint64_t len) {
  const unsigned code = lane_code(len);
  return code == 0 ? 0u : 1u << (code - 1);
}

// The lane classes, whose codes (slot_code) run from 1 to kLaneClasses.
inline constexpr unsigned kLaneClasses = 6;  // 1, 2, 4, 8, 16 and 32 lanes
// Lane classes up to this code (1: one lane, 2: two) are folded by the thread that reads the
// segment's offsets, with no list, in element order: up to 8-byte elements (wider ones would not
// stay in registers). Four lanes' worth (16 elements) alone costs more loads in flight than the
// lists do.
WARPFOLD_HOST_DEVICE constexpr uint8_t alone_max_code(unsigned elem_bytes) { return elem_bytes <= 8 ? 2 : 0; }
// The most elements a thread folds alone, for a code up to alone_max_code.
WARPFOLD_HOST_DEVICE constexpr unsigned alone_items(uint8_t max_code) {
  return max_code == 0 ? 1 : kLaneItems << (max_code - 1);
}

// Slots a thread folds alone at once, `items` elements of elem_bytes each (of its `slots`): as
// many as keep about 64 bytes of loads in registers (more would spill).
WARPFOLD_HOST_DEVICE constexpr unsigned alone_in_flight(unsigned elem_bytes, unsigned items, unsigned slots) {
  const unsigned values = elem_bytes <= 4 ? 16 : elem_bytes <= 8 ? 8 : 4;
  const unsigned n = values / items;
  return n >= slots ? slots : n >= 2 ? 2 : 1;
}
inline constexpr uint8_t kWarpClassCode = kLaneClasses + 1;
inline constexpr uint8_t kBlockClassCode = kWarpClassCode + 1;  // the kernel's own, never listed
static_assert(kMaxLaneGroup == 1u << (kLaneClasses - 1), "one lane class per power of two up to kMaxLaneGroup");

// The longest segment a warp reduces, in elements of elem_bytes (never below the lane classes').
WARPFOLD_HOST_DEVICE constexpr uint64_t warp_max_items(unsigned elem_bytes) {
  const uint64_t by_bytes = kWarpMaxBytes / elem_bytes;
  const uint64_t lanes_max = uint64_t(kLaneItems) * kMaxLaneGroup;
  return by_bytes > lanes_max ? by_bytes : lanes_max;
}

// Whether a segment of len elements of elem_bytes each is block-class: one compare, for a kernel
// that needs only that of every segment (the few-segments plan), not its code.
WARPFOLD_HOST_DEVICE constexpr bool block_class(uint64_t len, unsigned elem_bytes) {
  return len > warp_max_items(elem_bytes);
}

// A segment's class and code in one: 0 when empty, its lane code, kWarpClassCode, or
// kBlockClassCode. The one definition of the classes' boundaries, taken per segment by the kernels.
WARPFOLD_HOST_DEVICE constexpr uint8_t slot_code(uint64_t len, unsigned elem_bytes) {
  if (len > uint64_t(kLaneItems) * kMaxLaneGroup) {
    return block_class(len, elem_bytes) ? kBlockClassCode : kWarpClassCode;
  }
  return len == 0 ? uint8_t(0) : uint8_t(lane_code(len));
}

// The class a code names.
WARPFOLD_HOST_DEVICE constexpr segment_class class_of_code(uint8_t code) {
  return code == 0                 ? segment_class::empty
         : code <= kLaneClasses    ? segment_class::lanes
         : code == kWarpClassCode  ? segment_class::warp
                                   : segment_class::block;
}

// The class of a segment of len elements of elem_bytes each.
WARPFOLD_HOST_DEVICE constexpr segment_class classify_segment(uint64_t len, unsigned elem_bytes) {
  return class_of_code(slot_code(len, elem_bytes));
}
static_assert(classify_segment(warp_max_items(4) + 1, 4) == segment_class::block && block_class(warp_max_items(4) + 1, 4) &&
                  !block_class(warp_max_items(4), 4) && !block_class(1, 64),
              "block_class is the block class of classify_segment");
static_assert(lane_code(5) == 2 && slot_code(128, 4) == 6 && classify_segment(129, 4) == segment_class::warp,
              "the classes are usable at compile time");

// Tiles per piece of a long segment, as a power of two: 4, 8 or 16, the largest that still gives
// every block of the grid (max_pieces) one piece of the call's work_tiles. Larger pieces cost
// fewer claims and partials per tile; smaller ones keep every block busy where the call holds
// little work. A shift, because a division by a variable spills in the kernel.
WARPFOLD_HOST_DEVICE constexpr unsigned piece_tiles_log2(uint64_t work_tiles, uint64_t max_pieces) {
  unsigned l = kPieceMaxTilesLog2;
  while (l > kPieceMinTilesLog2 && (work_tiles >> l) < max_pieces) --l;
  return l;
}

// The call's tiles as a segment sees them: the known total (total_tiles, ~0 where the call does
// not know it), or else that many segments as long as this one. Both factors are capped so that
// the product cannot overflow; piece_tiles needs it only up to its cap.
WARPFOLD_HOST_DEVICE constexpr uint64_t work_tiles_of(uint64_t total_tiles, uint64_t segments, uint64_t tiles) {
  constexpr uint64_t kCap = uint64_t(1) << 31;
  const uint64_t as_many = (segments < kCap ? segments : kCap) * (tiles < kCap ? tiles : kCap);
  return total_tiles < as_many ? total_tiles : as_many;
}

// The pieces of a block-class segment whose body has `items` items, read in tiles of tile_items:
// its tiles over a piece's (piece_tiles of the call's work_tiles), rounded to the nearest, at
// least one and at most max_pieces (the grid the device holds, so that a single segment keeps
// every block busy). Rounded to the nearest, not down, so that no block reads more than one and a
// half pieces' tiles alone: the call waits for its longest share.
WARPFOLD_HOST_DEVICE constexpr uint64_t pieces_for(uint64_t items, uint64_t tile_items, uint64_t max_pieces,
                                                   uint64_t work_tiles) {
  const unsigned piece_log2 = piece_tiles_log2(work_tiles, max_pieces);
  const uint64_t pieces = (ceil_div(items, tile_items) + (uint64_t(1) << (piece_log2 - 1))) >> piece_log2;
  return pieces < 1 ? 1 : pieces > max_pieces ? max_pieces : pieces;
}

// --- the grid ----------------------------------------------------------------------------------

// Segments per tile: the fewest, up to kMaxTileSegments, whose tiles the grid takes in one round,
// a tile per block, where it can. Each round of tiles costs a round trip for the offsets and a
// few barriers per block, so few full tiles beat many small ones; the blocks still share long
// segments' pieces, which balances a tile's load. Not rounded to a power of two, which would
// leave up to half the blocks without a tile.
//
// Where the segments need more rounds, every round is about as full as the others: the fewest
// segments, in whole kTileSegmentsStep steps, that fill as many rounds as full tiles would. Full
// tiles would leave a last round to a few blocks, and a tile of lane-class segments takes as long
// alone as among others (its warps wait on one batch after another); whole steps keep a tile's
// offsets on whole cache lines.
WARPFOLD_HOST_DEVICE constexpr unsigned tile_segments(uint64_t segments, unsigned grid) {
  const uint64_t blocks = grid > 0 ? grid : 1;
  const uint64_t rounds = ceil_div(segments, blocks * kMaxTileSegments);
  if (rounds <= 1) {
    const uint64_t k = ceil_div(segments, blocks);
    return k < 1 ? 1u : unsigned(k);
  }
  // At most kMaxTileSegments: the share before rounding is, and kMaxTileSegments is a whole step.
  return unsigned(ceil_div(ceil_div(segments, blocks * rounds), kTileSegmentsStep) * kTileSegmentsStep);
}

// The grid of a call of at most kMaxTileSegments segments that knows its input's total_tiles:
// a warp for each segment, and two blocks for each tile of the input, so that the pieces of its
// block-class segments (each longer than three quarters of a tile) still take one round, but no
// more blocks than the device holds. Blocks past these would only read every offset to find
// nothing to do.
WARPFOLD_HOST_DEVICE constexpr unsigned few_segments_grid(uint64_t segments, uint64_t total_tiles, unsigned blocks) {
  const uint64_t warp_blocks = ceil_div(segments, kSegmentWarps);
  const uint64_t tile_blocks = total_tiles < blocks ? 2 * total_tiles : blocks;
  const uint64_t grid = warp_blocks > tile_blocks ? warp_blocks : tile_blocks;
  return grid < blocks ? unsigned(grid < 1 ? 1 : grid) : blocks;
}

// The tiles that blocks 0 … b take between them (tile t goes to block t mod grid): what a block
// that has finished its own waits to see classified before it helps with long segments. Only
// blocks up to b: a block never waits for a block after it, which may not have started.
WARPFOLD_HOST_DEVICE constexpr uint64_t tiles_through_block(uint64_t b, uint64_t tiles, uint64_t grid) {
  const uint64_t rest = tiles % grid;
  return (b + 1) * (tiles / grid) + (b + 1 < rest ? b + 1 : rest);
}

// The pieces the pool holds for long segments at once. Knowing the input's total length (the
// overload that takes it, the fixed-size and axis calls): enough for every long segment, which
// spans at least 1.5·kPieceMinTiles tiles (its last, partial tile counted whole: more than
// 1.5·kPieceMinTiles - 1 tiles of items) in pieces of at least three quarters of kPieceMinTiles
// tiles (pieces_for), so the pieces number under 2·items / (kPieceMinTiles · tile_items).
// Without it: kPoolSplits segments split max_pieces ways. Never fewer than max_pieces, so one
// segment always fits.
WARPFOLD_HOST_DEVICE constexpr uint64_t pool_pieces(bool knows_total, uint64_t total_items, uint64_t tile_items,
                                                    uint64_t max_pieces) {
  const uint64_t cap = uint64_t(1) << 30;  // the counters hold 32 bits
  uint64_t pieces = knows_total ? 2 * (total_items / (kPieceMinTiles * tile_items)) + 1 : kPoolSplits * max_pieces;
  if (pieces < max_pieces) pieces = max_pieces;
  return pieces < cap ? pieces : cap;
}

// Temp storage of the segments kernel, in 8-byte words: the header (epoch, status: combine.cuh's,
// so that last_combine_status reads it), three tagged counters (tiles classified, entries, pool
// pieces used), a tagged hint (every entry below it has no piece left), a tagged flag (the flat
// kernel left a segment longer than kFlatMax), the long-segment entries, then the pool of tagged
// piece partials.
inline constexpr unsigned kSegmentCounterWords = 8;  // header and counters, padded
// What the flat kernel stores in kLeftoverWord, with the call's tag, where it leaves a segment
// longer than kFlatMax; any other word: nothing is left.
inline constexpr unsigned kFlatLeftLong = 1;
WARPFOLD_HOST_DEVICE constexpr unsigned long long flat_word(unsigned tag, unsigned what) {
  return (static_cast<unsigned long long>(tag) << 32) | what;
}
inline constexpr unsigned kClassifiedWord = 2, kEntriesWord = 3, kPoolUsedWord = 4, kSpentEntriesWord = 5,
                          kLeftoverWord = 6;
inline constexpr unsigned kEntryWords = 8;           // flag, cursor, arrivals, segment, pool base, pieces, slot
struct segments_layout {
  uint64_t max_entries = 0;
  uint64_t pool_pieces = 0;
  uint64_t entries_word = kSegmentCounterWords;
  uint64_t pool_word = 0;
  uint64_t words = 0;
};
WARPFOLD_HOST_DEVICE constexpr segments_layout layout_segments(uint64_t pool, unsigned partial_words) {
  segments_layout l{};
  l.pool_pieces = pool;
  l.max_entries = pool / 2 + 1;  // a long segment has at least two pieces
  l.pool_word = l.entries_word + l.max_entries * kEntryWords;
  l.words = l.pool_word + pool * partial_words;
  return l;
}

// The pieces of each of `rows` rows of len elements where the rows are alike, so that the host
// can hand out their pieces with no tiles or published entries: every row block-class and cut
// into the same pieces whatever its alignment (a head of 0 to item_elements - 1 elements before
// the items), and, where they are cut, the pool and the entries hold every row's. Else 0.
WARPFOLD_HOST_DEVICE constexpr uint64_t alike_row_pieces(uint64_t rows, uint64_t len, unsigned elem_bytes,
                                                         unsigned item_elements, uint64_t tile_items,
                                                         uint64_t max_pieces, uint64_t total_tiles,
                                                         const segments_layout& layout) {
  if (rows == 0 || classify_segment(len, elem_bytes) != segment_class::block) return 0;
  const auto pieces_of = [&](uint64_t items) {
    return pieces_for(items, tile_items, max_pieces, work_tiles_of(total_tiles, rows, ceil_div(items, tile_items)));
  };
  const uint64_t most = pieces_of(len / item_elements);
  if (pieces_of((len - (item_elements - 1)) / item_elements) != most) return 0;
  if (most == 1) return 1;
  return rows <= layout.max_entries && rows <= layout.pool_pieces / most ? most : 0;
}

// --- axis reductions ---------------------------------------------------------------------------

// What is wrong with a shape: element offsets or counts that do not fit in 64 bits (int64 byte
// offsets; the element and output counts). A zero extent is valid.
enum class axis_problem { none, overflow };
inline axis_problem check_axis_shape(const axis_shape& s, size_t elem_bytes) {
  const uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
  const auto mul_overflows = [](uint64_t a, uint64_t b) { return a != 0 && b > ~uint64_t(0) / a; };
  if (mul_overflows(s.outer, s.inner)) return axis_problem::overflow;
  const uint64_t outputs = s.outer * s.inner;
  if (outputs == 0) return axis_problem::none;  // nothing to read or write
  if (mul_overflows(outputs, s.axis)) return axis_problem::overflow;
  if (s.axis == 0) return axis_problem::none;   // every output is init: nothing is read
  // The farthest element from d_in, in elements, then in bytes, within int64.
  uint64_t span = 0;
  const uint64_t extents[3] = {s.outer, s.axis, s.inner};
  const int64_t strides[3] = {s.outer_stride, s.axis_stride, s.inner_stride};
  for (int k = 0; k < 3; ++k) {
    if (extents[k] <= 1) continue;
    if (strides[k] == std::numeric_limits<int64_t>::min()) return axis_problem::overflow;
    const uint64_t step = uint64_t(strides[k] < 0 ? -strides[k] : strides[k]);
    if (mul_overflows(extents[k] - 1, step) || (extents[k] - 1) * step > kMax - span) return axis_problem::overflow;
    span += (extents[k] - 1) * step;
  }
  if (span > kMax / elem_bytes) return axis_problem::overflow;
  return axis_problem::none;
}

// Which kernel reduces a shape: the segments kernel over rows of contiguous elements (the axis
// has stride 1; a row per output), the columns kernel (the inner extent has stride 1: lanes
// read neighbouring outputs' elements), or the segments kernel over strided rows (neither).
enum class axis_path { rows, columns, strided_rows };
inline axis_path choose_axis_path(const axis_shape& s) {
  if (s.inner > 1 && s.inner_stride == 1) return axis_path::columns;
  return s.axis_stride == 1 ? axis_path::rows : axis_path::strided_rows;
}

// The columns kernel's split. A lane reads `vec` neighbouring columns at once (a vector where the
// layout allows, else 1). The outputs are cut into strips of width · vec columns (width: 32 lanes,
// or fewer for a narrower row); a warp covers rows_per_load = 32 / width rows of a strip at once.
// A work unit gives each of the block's warps one strip: warps_per_strip warps split the rows of
// each of its strips_per_unit strips, as few as fill the grid with units and as many as the axis
// gives each warp a whole round of loads (a warp alone on its strip folds it without barriers,
// and a short axis keeps every warp on a strip of its own). Where a strip takes every warp,
// the axis is cut into `chunks` of rows_per_chunk rows, each a unit of its own, so that the units
// keep the grid's blocks busy in few rounds (column_chunks); each strip's chunks are combined
// per column in two steps: the last chunk to arrive of each of `chunk_sets` sets of
// chunks_per_set chunks folds its set, and the last set to arrive folds the sets. (One block
// folding every chunk would read chunks × columns partials alone, the grid's whole share of them.)
struct column_plan {
  unsigned vec = 1, width = 1, rows_per_load = 32, warps_per_strip = kSegmentWarps, strips_per_unit = 1;
  uint64_t strips = 0, groups = 0, chunks = 1, rows_per_chunk = 0, units = 0;
  uint64_t chunks_per_set = 1, chunk_sets = 1;
  WARPFOLD_HOST_DEVICE constexpr unsigned columns_per_strip() const { return width * vec; }
  WARPFOLD_HOST_DEVICE constexpr uint64_t chunks_in_set(uint64_t set) const {
    const uint64_t first = set * chunks_per_set;
    return chunks - first < chunks_per_set ? chunks - first : chunks_per_set;
  }
};

// The set size of `chunks` chunks of `columns` columns: one set while the block that folds them
// polls at most 8 partials per thread (kColumnOneSetPartials), else about √chunks, so that both
// steps fold about as many partials.
inline uint64_t chunk_set_size(uint64_t chunks, unsigned columns) {
  if (chunks * columns <= kColumnOneSetPartials) return chunks;
  uint64_t k = 1;
  while (k * k < chunks) ++k;
  return k;
}
// The chunks per strip for `strip_units` units of whole strips on `grid` blocks, at most `most`:
// the fewest rounds of the grid (from the fewest the strips need, up to kColumnExtraRounds more)
// whose units keep kColumnBusyTenths of the rounds' blocks busy, else the busiest of those. A unit
// is a block's stream of loads from start to end; each one more costs a drain and a combine.
inline uint64_t column_chunks(uint64_t strip_units, unsigned grid, uint64_t most) {
  const uint64_t fewest = ceil_div(strip_units, grid);
  uint64_t best = 1, best_units = 0, best_slots = 1;
  for (uint64_t rounds = fewest; rounds <= fewest + kColumnExtraRounds; ++rounds) {
    uint64_t chunks = rounds * grid / strip_units;
    chunks = chunks < 1 ? 1 : (chunks > most ? most : chunks);
    const uint64_t units = chunks * strip_units, slots = ceil_div(units, grid) * grid;
    if (units * 10 >= slots * kColumnBusyTenths) return chunks;
    if (units * best_slots > best_units * slots) {
      best = chunks;
      best_units = units;
      best_slots = slots;
    }
  }
  return best;
}
inline column_plan plan_columns(uint64_t outer, uint64_t axis, uint64_t inner, unsigned grid, unsigned vec = 1) {
  column_plan p;
  p.vec = vec;
  const uint64_t lanes_needed = ceil_div(inner, vec);
  p.width = unsigned(lanes_needed < 32 ? lanes_needed : 32);
  p.rows_per_load = 32 / p.width;
  p.strips = ceil_div(lanes_needed, p.width);
  const uint64_t warp_round = uint64_t(p.rows_per_load) * kColumnUnroll;
  // Warps share a strip only while the units of whole strips leave blocks of the grid idle.
  const auto units_with = [&](unsigned w) { return outer * ceil_div(p.strips, kSegmentWarps / w); };
  unsigned warps = 1;
  while (warps < kSegmentWarps && 2 * warps * warp_round <= axis && units_with(warps) < grid) warps *= 2;
  p.warps_per_strip = warps;
  p.strips_per_unit = kSegmentWarps / warps;
  p.groups = ceil_div(p.strips, p.strips_per_unit);
  const uint64_t group_units = outer * p.groups;
  const uint64_t most = axis == 0 ? 1 : ceil_div(axis, kSegmentWarps * warp_round);
  const uint64_t chunks = warps == kSegmentWarps ? column_chunks(group_units, grid, most) : 1;
  p.rows_per_chunk = axis == 0 ? 0 : ceil_div(axis, chunks);
  p.chunks = axis == 0 ? 1 : ceil_div(axis, p.rows_per_chunk);
  p.chunks_per_set = chunk_set_size(p.chunks, p.columns_per_strip());
  p.chunk_sets = ceil_div(p.chunks, p.chunks_per_set);
  p.units = group_units * p.chunks;
  return p;
}

// The loads each warp issues for its strip of one unit of plan p (one chunk): its share of the
// chunk's rows, rows_per_load at a time.
inline uint64_t warp_loads_per_unit(const column_plan& p) {
  return ceil_div(p.rows_per_chunk, uint64_t(p.warps_per_strip) * p.rows_per_load);
}

// The plain kernel's grid for plan p (one chunk) where `blocks` fit at once. A plan of more units
// than blocks runs in rounds, and a block that takes one unit more than others is what the last
// round waits for. Where each warp's unit holds two rounds of loads or more, two thirds of the
// blocks keep memory as busy: the grid is then the fewest blocks that run the units in as many
// rounds as two thirds would, so that every block takes the same number of units, give or take
// one on a few. Shorter units keep every block, whose loads the memory needs.
inline unsigned plain_columns_grid(const column_plan& p, unsigned blocks) {
  if (p.units <= blocks) return unsigned(p.units);
  if (warp_loads_per_unit(p) < 2 * kColumnUnroll) return blocks;
  const uint64_t fewer = blocks > 1 ? blocks * uint64_t(2) / 3 : 1;  // at least one block
  return unsigned(ceil_div(p.units, ceil_div(p.units, fewer)));
}

// The plan on a device where the columns kernel holds plain_blocks at once and its chunked form
// (segmented_columns.cuh: more registers) chunked_blocks: a plan that cuts the axis is made for
// the chunked kernel's grid, so that its rounds are that grid's.
inline column_plan plan_columns_for(uint64_t outer, uint64_t axis, uint64_t inner, unsigned vec, unsigned plain_blocks,
                                    unsigned chunked_blocks) {
  const column_plan plain = plan_columns(outer, axis, inner, plain_blocks, vec);
  return plain.chunks > 1 ? plan_columns(outer, axis, inner, chunked_blocks, vec) : plain;
}

// Temp storage of the columns kernel, in 8-byte words: the header, then (where the axis is cut,
// and so every unit is one strip) per strip the tagged arrival counters (the sets', then one per
// set) and the tagged partials, one per column and chunk, then one per column and set.
WARPFOLD_HOST_DEVICE constexpr uint64_t column_counters_per_strip(const column_plan& p) { return 1 + p.chunk_sets; }
WARPFOLD_HOST_DEVICE constexpr uint64_t column_partials_per_strip(const column_plan& p) {
  return (p.chunks + p.chunk_sets) * p.columns_per_strip();
}
struct columns_layout {
  uint64_t counters_word = kSegmentCounterWords;
  uint64_t partials_word = kSegmentCounterWords;
  uint64_t words = kSegmentCounterWords;
};
inline columns_layout layout_columns(const column_plan& p, uint64_t outer, unsigned partial_words) {
  columns_layout l;
  if (p.chunks <= 1) return l;
  const uint64_t strips = outer * p.strips;
  l.partials_word = l.counters_word + strips * column_counters_per_strip(p);
  l.words = l.partials_word + strips * column_partials_per_strip(p) * partial_words;
  return l;
}

}  // namespace warpfold::detail
