// warpfold::segmented_reduce over offsets, against CPU references: every regime (lane groups,
// warps, blocks, long segments shared by the grid, skewed mixes), CSR and shuffled begin/end
// offsets, empty and reversed segments, NaN and infinities, argmin/argmax ties, clamped offsets,
// the same bits whether long segments are shared or not, in whichever tile a block-class segment
// lies and whatever a lane-class segment's neighbours, beyond 2^32 elements, bad arguments, and the
// device's classification.
#include "gpu/segmented_test_support.cuh"

#include "harness/run_context.hpp"

#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// Runs segmented_reduce (float data, int32 offsets) with `op` and `init`, and checks every output
// equals the reference, twice on the same temp storage (once in a representative run).
template <class Op>
void check_float_segments(const std::vector<float>& data, const segment_set& s, Op op, float init,
                          const std::string& where) {
  offset_buffer<float> in(data, 0);
  const device_offsets<int32_t> off(s);
  segmented_runner runner;
  const auto call = [&](void* t, size_t& b, float* o) {
    return segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, op, init);
  };
  const std::vector<float> got = runner.run<float>(s.size(), call);
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range r = range_of(s, k, false);
    const float want = reference_fold(r.len, init, op, [&](uint64_t j) { return data[r.begin + j]; });
    ASSERT_TRUE(same_value(got[k], want)) << where << ": segment " << k << " of length " << r.len << ", got "
                                          << got[k] << ", expected " << want;
  }
  if (representative_run()) return;
  const std::vector<float> again = runner.run<float>(s.size(), call);
  ASSERT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(float)), 0) << "not reproducible: " << where;
}

TEST(SegmentedReduce, FloatSumsOfEveryRegime) {
  WARPFOLD_REQUIRE_GPU();
  for (regime r : every_regime()) {
    for (bool csr : {true, false}) {
      const uint64_t seed = new_seed();
      const segment_set s = lay_out(regime_lengths(r, seed, sizeof(float), regime_budget(r)), seed + 1, csr);
      check_float_segments(quarter_values<float>(s.n, seed + 2), s, plus{}, 0.5f, case_name("sum", r, csr, seed));
    }
  }
}

// More segments than the grid's tiles of kMaxTileSegments hold in one round: the tiles shrink so
// that their rounds even out (tile_segments), and every segment is still reduced once.
TEST(SegmentedReduce, TilesOfSeveralRoundsCoverEverySegment) {
  WARPFOLD_REQUIRE_GPU();
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  // 1.1 rounds of full tiles on a grid of 8 blocks per SM (the most of 256 threads), more on fewer.
  const uint64_t segments = uint64_t(sms) * 8 * detail::kMaxTileSegments * 11 / 10;
  const uint64_t seed = new_seed();
  std::mt19937_64 gen(seed);
  std::vector<uint64_t> lengths(segments);
  // Mostly short ones, with every other class among them: 65-128 (32 lanes), warp-class,
  // block-class and a few long ones shared by the grid.
  const uint64_t warp_max = detail::warp_max_items(sizeof(float));
  for (uint64_t& len : lengths) {
    const uint64_t pick = gen() % 10000;
    len = pick < 1000   ? 0
          : pick < 3000 ? 9 + gen() % 56
          : pick < 3500 ? 65 + gen() % 64
          : pick < 3520 ? warp_max / 2 + gen() % (warp_max / 2)
          : pick < 3523 ? warp_max + 1 + gen() % (4 * warp_max)
                        : 1 + gen() % 8;
  }
  for (int k = 0; k < 4; ++k) lengths[gen() % lengths.size()] = (uint64_t(1) << 18) + gen() % (uint64_t(1) << 16);
  WARPFOLD_REQUIRE_TEST_SIZE(std::accumulate(lengths.begin(), lengths.end(), uint64_t(0)));
  for (bool csr : {true, false}) {
    const segment_set s = lay_out(lengths, seed + 1, csr);
    check_float_segments(quarter_values<float>(s.n, seed + 2), s, plus{}, 0.5f,
                         "several rounds of tiles, " + std::string(csr ? "CSR" : "begin/end") + ", seed " +
                             std::to_string(seed));
  }
}

// A NaN makes a segment's sum and maximum NaN; +inf wins the maximum; +inf and -inf sum to NaN.
TEST(SegmentedReduce, NanAndInfinitiesPerSegment) {
  WARPFOLD_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (regime r : {regime::tiny, regime::warp, regime::block, regime::long_segments}) {
    const uint64_t seed = new_seed();
    const segment_set s = lay_out(regime_lengths(r, seed, sizeof(float), regime_budget(r)), seed + 1, true);
    std::vector<float> data = random_values<float>(s.n, seed + 2, -1, 1);
    std::mt19937_64 gen(seed + 3);
    for (size_t k = 0; k < s.size(); ++k) {  // a third of the segments get a NaN, an infinity, or both infinities
      const segment_range g = range_of(s, k, false);
      if (g.len == 0 || gen() % 3 != 0) continue;
      switch (gen() % 3) {
        case 0: data[g.begin + gen() % g.len] = nan; break;
        case 1: data[g.begin + gen() % g.len] = inf; break;
        default:
          data[g.begin + gen() % g.len] = inf;
          data[g.begin + gen() % g.len] = -inf;  // may land on the +inf: then the sum is -inf
      }
    }
    check_float_segments(data, s, maximum{}, -100.0f, case_name("max", r, true, seed));
    // Sums: compared where the reference is not finite (NaN or ±inf); finite ones by their bound below.
    offset_buffer<float> in(data, 0);
    const device_offsets<int32_t> off(s);
    segmented_runner runner;
    const std::vector<float> got = runner.run<float>(s.size(), [&](void* t, size_t& b, float* o) {
      return segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, plus{}, 0.0f);
    });
    for (size_t k = 0; k < s.size(); ++k) {
      const segment_range g = range_of(s, k, false);
      const double want = reference_fold(g.len, 0.0, plus{}, [&](uint64_t j) { return double(data[g.begin + j]); });
      if (std::isfinite(want)) continue;
      ASSERT_TRUE(same_value(double(got[k]), want)) << "sum, " << to_string(r) << ", segment " << k << ", seed " << seed;
    }
  }
}

// argmin/argmax name the first of equal extremes (values rounded to quarters: many ties), and the
// first NaN where a segment has one.
TEST(SegmentedReduce, ArgminArgmaxTiesAndNan) {
  WARPFOLD_REQUIRE_GPU();
  for (regime r : every_regime()) {
    const uint64_t seed = new_seed();
    const segment_set s = lay_out(regime_lengths(r, seed, sizeof(float), regime_budget(r)), seed + 1, r != regime::tiny);
    std::vector<float> data = random_values<float>(s.n, seed + 2, -4, 4);
    for (auto& x : data) x = std::round(x * 4) / 4;
    std::mt19937_64 gen(seed + 3);
    for (int k = 0; k < 50 && s.n > 0; ++k) data[gen() % s.n] = std::numeric_limits<float>::quiet_NaN();
    offset_buffer<float> in(data, 1);
    const device_offsets<int32_t> off(s);
    segmented_runner runner;
    for (bool minimum : {true, false}) {
      const auto got = runner.run<key_value<float>>(s.size(), [&](void* t, size_t& b, key_value<float>* o) {
        return minimum ? segmented_argmin(t, b, in.get(), o, s.size(), off.begin, off.end)
                       : segmented_argmax(t, b, in.get(), o, s.size(), off.begin, off.end);
      });
      for (size_t k = 0; k < s.size(); ++k) {
        const segment_range g = range_of(s, k, false);
        const auto want = reference_arg<float>(g.len, minimum, [&](uint64_t j) { return data[g.begin + j]; });
        ASSERT_TRUE(same_value(got[k], want)) << (minimum ? "argmin, " : "argmax, ") << to_string(r) << ", segment "
                                              << k << " of length " << g.len << ": index " << got[k].index
                                              << ", expected " << want.index << ", seed " << seed;
      }
    }
  }
}

// 1-byte elements with int64 offsets at every element offset of the input (heads of 0 to 15
// elements), exact: one huge segment among the regimes, cut into as many pieces as the grid.
template <class T, class Acc, class Op>
void check_byte_segments(Op op, Acc init) {
  WARPFOLD_REQUIRE_GPU();
  std::vector<std::pair<std::string, std::vector<uint64_t>>> cases;
  for (regime r : every_regime()) cases.push_back({to_string(r), regime_lengths(r, new_seed(), 1, regime_budget(r))});
  const uint64_t huge = std::min<uint64_t>((uint64_t(1) << 24) + 13, max_test_n());
  cases.push_back({"one huge segment", {huge}});
  using lim = std::numeric_limits<T>;
  for (const auto& [name, lengths] : cases) {
    const uint64_t seed = new_seed();
    const segment_set s = lay_out(lengths, seed, false);
    const std::vector<T> data = random_values<T>(s.n, seed + 1, lim::min(), lim::max());
    const device_offsets<int64_t> off(s);
    segmented_runner runner;
    for (size_t shift : all_or_one<size_t>({0, 5, 15})) {
      offset_buffer<T> in(data, shift);
      const auto got = runner.run<Acc>(s.size(), [&](void* t, size_t& b, Acc* o) {
        return segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, op, init);
      });
      for (size_t k = 0; k < s.size(); ++k) {
        const segment_range g = range_of(s, k, false);
        const Acc want = reference_fold(g.len, init, op, [&](uint64_t j) { return Acc(data[g.begin + j]); });
        ASSERT_EQ(got[k], want) << name << ", segment " << k << " of length " << g.len << ", input " << shift
                                << " bytes past 16, seed " << seed;
      }
    }
  }
}

TEST(SegmentedReduce, Int8SumsIntoInt64AtEveryAlignment) { check_byte_segments<int8_t>(plus{}, int64_t(-3)); }

// The operators whose vectors fold a word at a time: a signed maximum, an unsigned xor.
TEST(SegmentedReduce, Int8MaximaAndUint8XorAtEveryAlignment) {
  check_byte_segments<int8_t>(maximum{}, int8_t(-128));
  check_byte_segments<uint8_t>(bit_xor{}, uint8_t(0x5a));
}

// With the input's length, offsets are clamped to [0, n): past the end, negative, reversed. The
// bytes around the input are poison (offset_buffer), so a read outside changes a sum.
TEST(SegmentedReduce, ClampedOffsetsNeverReadOutside) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  segment_set s = lay_out(regime_lengths(regime::empty_tenth, seed, sizeof(double), 1 << 16), seed + 1, false);
  std::mt19937_64 gen(seed + 2);
  const int64_t n = int64_t(s.n);
  const std::vector<std::pair<int64_t, int64_t>> outside{{-5, 3}, {n - 2, n + 100}, {-100, n + 100}, {n + 1, n + 50},
                                                         {-9, -2}, {n, n},          {3, -7},          {n + 5, 2}};
  for (const auto& [b, e] : outside) {
    const size_t k = gen() % s.size();
    s.begin.insert(s.begin.begin() + k, b);
    s.end.insert(s.end.begin() + k, e);
  }
  const std::vector<double> data = quarter_values<double>(s.n, seed + 3);
  offset_buffer<double> in(data, 1);
  const device_offsets<int64_t> off(s);
  segmented_runner runner;
  const auto got = runner.run<double>(s.size(), [&](void* t, size_t& b, double* o) {
    return segmented_reduce(t, b, in.get(), s.n, o, s.size(), off.begin, off.end, plus{}, 0.25);
  });
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range g = range_of(s, k, true);
    const double want = reference_fold(g.len, 0.25, plus{}, [&](uint64_t j) { return data[g.begin + j]; });
    ASSERT_EQ(got[k], want) << "segment " << k << " [" << s.begin[k] << ", " << s.end[k] << "), seed " << seed;
  }
}

// A long segment is shared by the grid while the pool has room and reduced by one block where it
// has none: the pieces and their fold are the same, so the bits are too. Order-sensitive data
// (partial sums far above the totals) would show any other order.
TEST(SegmentedReduce, LongSegmentsGiveTheSameBitsSharedOrNot) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  const segment_set s = lay_out(regime_lengths(regime::long_segments, seed, sizeof(float), regime_budget(regime::long_segments)),
                                seed + 1, true);
  const std::vector<float> data = order_sensitive_values<float>(s.n, seed + 2);
  offset_buffer<float> in(data, 3);
  const device_offsets<int32_t> off(s);
  segmented_runner runner;
  std::vector<std::vector<float>> results;
  for (uint64_t pool : {~uint64_t(0), uint64_t(0), uint64_t(700)}) {  // all shared, none, some
    results.push_back(runner.run<float>(s.size(), [&](void* t, size_t& b, float* o) {
      return detail::dispatch_segmented(t, b, in.get(), false, 0, o, s.size(), off.begin, off.end, 0.0f, plus{},
                                        detail::convert<identity>{}, cudaStream_t(0), pool);
    }));
  }
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range g = range_of(s, k, false);
    ASSERT_TRUE(within_sum_bound(g.len, [&](uint64_t j) { return data[g.begin + j]; }, results[0][k]))
        << "segment " << k << " of length " << g.len << ", seed " << seed;
    ASSERT_TRUE(bitwise_equal(results[0][k], results[1][k])) << "shared and unshared differ: segment " << k;
    ASSERT_TRUE(bitwise_equal(results[0][k], results[2][k])) << "shared and partly shared differ: segment " << k;
  }
}

// Sums every segment of `s` (order-sensitive float data, the input `shift` elements into its
// buffer, Offset offsets, the CUB-style call or, `with_length`, the one that takes the input's
// length) once, then with every segment listed twice in a row: each sum is within the error bound
// of its additions, and its bits are the same in all three.
template <class Offset>
void check_same_bits_listed_twice(const segment_set& s, uint64_t seed, size_t shift, bool with_length = false) {
  const segment_set twice = listed_twice(s);
  const std::vector<float> data = order_sensitive_values<float>(s.n, seed + 2);
  offset_buffer<float> in(data, shift);
  segmented_runner runner;
  const auto run = [&](const segment_set& set) {
    const device_offsets<Offset> off(set);
    return runner.run<float>(set.size(), [&](void* t, size_t& b, float* o) {
      return with_length ? segmented_reduce(t, b, in.get(), set.n, o, set.size(), off.begin, off.end, plus{}, 0.0f)
                         : segmented_reduce(t, b, in.get(), o, set.size(), off.begin, off.end, plus{}, 0.0f);
    });
  };
  const std::vector<float> once = run(s), doubled = run(twice);
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range g = range_of(s, k, false);
    ASSERT_TRUE(within_sum_bound(g.len, [&](uint64_t j) { return data[g.begin + j]; }, once[k]))
        << "segment " << k << " of length " << g.len << ", seed " << seed;
    ASSERT_TRUE(bitwise_equal(once[k], doubled[2 * k]))
        << "segment " << k << " of length " << g.len << " differs listed twice, seed " << seed;
    ASSERT_TRUE(bitwise_equal(once[k], doubled[2 * k + 1])) << "segment " << k << " differs between its copies";
  }
}

// Tiles of several block-class segments, some four times longer than the rest. Every sum is
// within the error bound of its additions, and each segment's bits are the same when every
// segment is listed twice (other tiles, other blocks): a block-class segment's fold depends on the
// segment alone. Order-sensitive data would show any other order.
TEST(SegmentedReduce, BlockSegmentsGiveTheSameBitsInAnyTile) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(sizeof(float));
  std::vector<uint64_t> lengths(representative_run() ? 1200 : 3000);
  for (uint64_t& len : lengths) len = warp_max + 1 + gen() % 1024 + (gen() % 7 == 0 ? 4 * warp_max : 0);
  check_same_bits_listed_twice<int32_t>(lay_out(lengths, seed + 1, true), seed, 0);
}

// Values of both signs and magnitudes 2^-10 to 2^10: a float or double sum of a few dozen of them
// rounds differently in almost any other order.
template <class T>
std::vector<T> spread_values(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u{1.0, 2.0};
  std::vector<T> v(n);
  for (T& x : v) x = T((gen() % 2 ? 1.0 : -1.0) * std::ldexp(u(gen), int(gen() % 21) - 10));
  return v;
}

// Segments of every class in calls of fewer than kFlatMinSegments segments (the segments kernel
// alone), most of them of the lane classes (9 to 128 elements), whose fold must depend on the
// segment alone, never on its neighbours or its place in the list: each segment's bits are the
// same in every arrangement (check_same_bits_in_any_arrangement). Run with the input at two
// alignments (which may change the bits, but the same in every arrangement).
template <class T>
void check_bits_in_any_arrangement(uint64_t seed, size_t shift) {
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(sizeof(T));
  std::vector<uint64_t> lengths(representative_run() ? 6000 : 20000);
  for (uint64_t& len : lengths) {
    const uint64_t pick = gen() % 100;
    len = pick < 70   ? 9 + gen() % 120
          : pick < 85 ? gen() % 9
          : pick < 97 ? 129 + gen() % 400
                      : warp_max + 1 + gen() % (2 * warp_max);
  }
  const segment_set s = lay_out(lengths, seed + 1, true);
  check_same_bits_in_any_arrangement(s, spread_values<T>(s.n, seed + 2), shift, seed);
}

TEST(SegmentedReduce, LaneClassSegmentsGiveTheSameBitsInAnyArrangement) {
  WARPFOLD_REQUIRE_GPU();
  for (size_t shift : all_or_one<size_t>({0, 3})) {
    check_bits_in_any_arrangement<float>(new_seed(), shift);
    check_bits_in_any_arrangement<double>(new_seed(), shift);
  }
}

// A call of at most one tile's segments is planned by every block alike (no tiles); the same
// segments listed twice, past one tile, take the tiled path. Every class, from empty to long,
// gives the same bits either way, with and without the input's length: the pool holds the
// pieces of the three long segments either way (32 long segments' worth per block of the grid,
// or every long segment's the length allows), so the plan runs. Without the length, both calls
// cut each long segment (32 to 64 tiles, in a call of at least 26,000 tiles' work) into pieces of
// 16 tiles on any grid up to 1648 blocks; with it, both count the same input.
TEST(SegmentedReduce, FewSegmentsGiveTheSameBitsAsTiles) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(sizeof(float));
  std::vector<uint64_t> lengths(detail::kMaxTileSegments - gen() % 200);
  for (uint64_t& len : lengths) {
    const uint64_t pick = gen() % 10;
    len = pick < 4 ? gen() % 129 : pick < 7 ? 129 + gen() % (warp_max - 128) : warp_max + 1 + gen() % (3 * warp_max);
  }
  for (int k = 0; k < 3; ++k) lengths[gen() % lengths.size()] = (uint64_t(1) << 17) + gen() % (uint64_t(1) << 17);
  const segment_set s = lay_out(lengths, seed + 1, false);
  check_same_bits_listed_twice<int64_t>(s, seed, 1);
  check_same_bits_listed_twice<int32_t>(s, seed, 1, true);
}

// Sums every segment of `s` with the CUB-style call (every resident block) and with the one that
// takes the input's length, whose call of few segments over a small input runs on a grid of its
// warps and tiles (few_segments_grid): each sum is within the error bound of its additions and
// the bits are the same either way.
void check_same_bits_with_length(const segment_set& s, uint64_t seed) {
  const std::vector<float> data = order_sensitive_values<float>(s.n, seed + 2);
  offset_buffer<float> in(data, 1);
  const device_offsets<int64_t> off(s);
  segmented_runner runner;
  std::vector<std::vector<float>> got;
  for (bool with_length : {false, true}) {
    got.push_back(runner.run<float>(s.size(), [&](void* t, size_t& b, float* o) {
      return with_length ? segmented_reduce(t, b, in.get(), s.n, o, s.size(), off.begin, off.end, plus{}, 0.0f)
                         : segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, plus{}, 0.0f);
    }));
  }
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range g = range_of(s, k, false);
    ASSERT_TRUE(within_sum_bound(g.len, [&](uint64_t j) { return data[g.begin + j]; }, got[0][k]))
        << "segment " << k << " of length " << g.len << ", seed " << seed;
    ASSERT_TRUE(bitwise_equal(got[0][k], got[1][k])) << "segment " << k << " differs with the length, seed " << seed;
  }
}

// A small call that gives the input's length: short, warp-class and a few block-class segments
// (their pieces take the smaller grid's blocks), and the same input covered by 300 segments
// each (their pieces overflow the pool, so the tiled path runs on that grid).
TEST(SegmentedReduce, SmallCallsGiveTheSameBitsWithTheLength) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(sizeof(float));
  std::vector<uint64_t> lengths(1000 - gen() % 100);
  for (uint64_t& len : lengths) len = gen() % 10 == 0 ? 129 + gen() % (warp_max - 128) : gen() % 129;
  // Under 5 tiles: one piece either way, where a longer segment's pieces follow the call's size,
  // which the length changes (pieces_for's work_tiles).
  for (int k = 0; k < 4; ++k) lengths[gen() % lengths.size()] = warp_max + 1 + gen() % (5 * warp_max);
  check_same_bits_with_length(lay_out(lengths, seed + 1, false), seed);
  segment_set whole;
  whole.n = 40000 + gen() % 1000;
  for (int k = 0; k < 300; ++k) {
    whole.begin.push_back(int64_t(gen() % 7));
    whole.end.push_back(int64_t(whole.n - gen() % 7));
  }
  check_same_bits_with_length(whole, seed + 3);
}

__global__ void slot_codes_kernel(const uint64_t* lengths, size_t count, unsigned elem_bytes, uint8_t* codes) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < count) codes[k] = detail::slot_code(lengths[k], elem_bytes);
}

// The kernels classify with slot_code's device form (a count of leading zeros); its host form is
// a loop, which the CPU tests check: both give the same code for every length.
TEST(SegmentedReduce, SlotCodesOnTheDeviceAreTheHosts) {
  WARPFOLD_REQUIRE_GPU();
  std::vector<uint64_t> lengths;
  for (uint64_t len = 0; len <= 13000; ++len) lengths.push_back(len);
  for (uint64_t big : {uint64_t(1) << 32, (uint64_t(1) << 32) + 3, uint64_t(1) << 40, ~uint64_t(0)}) {
    lengths.push_back(big);
  }
  const device_vector<uint64_t> d_lengths(lengths);
  const device_vector<uint8_t> d_codes(std::vector<uint8_t>(lengths.size(), 0xff));
  for (unsigned bytes : {1u, 4u, 8u, 64u}) {
    slot_codes_kernel<<<unsigned((lengths.size() + 255) / 256), 256>>>(d_lengths.get(), lengths.size(), bytes,
                                                                      d_codes.get());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<uint8_t> codes(lengths.size());
    ASSERT_EQ(cudaMemcpy(codes.data(), d_codes.get(), codes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t k = 0; k < lengths.size(); ++k) {
      ASSERT_EQ(unsigned(codes[k]), unsigned(detail::slot_code(lengths[k], bytes))) << lengths[k] << " of " << bytes;
    }
  }
}

// No segments: nothing is read or written, whatever the pointers.
TEST(SegmentedReduce, NoSegmentsWritesNothing) {
  WARPFOLD_REQUIRE_GPU();
  size_t bytes = 0;
  const int32_t* none = nullptr;
  ASSERT_EQ(segmented_reduce(nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0, none,
                             none, plus{}, 0.0f),
            cudaSuccess);
  void* temp = nullptr;
  ASSERT_EQ(cudaMalloc(&temp, bytes), cudaSuccess);
  EXPECT_EQ(segmented_reduce(temp, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0, none,
                             none, plus{}, 0.0f),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(temp);
}

// Beyond 2^32 elements (4 GiB of int8) with int64 offsets: segments crossing 2^32, a long one
// holding most of it, and argmax indices past 2^32 within a segment.
TEST(SegmentedReduce, BeyondTwoToThe32Elements) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t n = (1ull << 32) + (1ull << 20) + 17;
  WARPFOLD_REQUIRE_TEST_SIZE(n);
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  try {
    harness::require_free_device_memory(device, n + (size_t(512) << 20), "this test");
  } catch (const std::invalid_argument& e) {
    GTEST_SKIP() << e.what();
  }
  const uint64_t seed = new_seed();
  std::vector<int8_t> data = random_values<int8_t>(1 << 20, seed, -128, 127);
  data.resize(n);
  for (uint64_t i = 1 << 20; i < n; ++i) data[i] = data[i % (1 << 20)] ^ int8_t(i >> 20);
  segment_set s;
  s.n = n;
  const std::vector<std::pair<uint64_t, uint64_t>> ranges{
      {0, n}, {3, (1ull << 31) + 5}, {(1ull << 32) - 7, (1ull << 32) + 9}, {(1ull << 31) + 5, n - 1}, {n - 1, n}};
  for (const auto& [b, e] : ranges) {
    s.begin.push_back(int64_t(b));
    s.end.push_back(int64_t(e));
  }
  const device_offsets<int64_t> off(s);
  segmented_runner runner;
  {
    offset_buffer<int8_t> in(data, 0);
    const auto sums = runner.run<int64_t>(s.size(), [&](void* t, size_t& b, int64_t* o) {
      return segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, plus{}, int64_t(0));
    });
    // The references from one pass: the prefix sums at every offset, in order.
    std::vector<uint64_t> points;
    for (size_t k = 0; k < s.size(); ++k) points.insert(points.end(), {uint64_t(s.begin[k]), uint64_t(s.end[k])});
    std::sort(points.begin(), points.end());
    std::vector<int64_t> prefix(points.size());
    int64_t running = 0;
    uint64_t at = 0;
    for (size_t p = 0; p < points.size(); ++p) {
      for (; at < points[p]; ++at) running += data[at];
      prefix[p] = running;
    }
    const auto prefix_at = [&](int64_t x) {
      return prefix[size_t(std::lower_bound(points.begin(), points.end(), uint64_t(x)) - points.begin())];
    };
    for (size_t k = 0; k < s.size(); ++k) {
      EXPECT_EQ(sums[k], prefix_at(s.end[k]) - prefix_at(s.begin[k])) << "segment " << k << ", seed " << seed;
    }
  }
  // Every element below 1 but two equal maxima past 2^32 of segment 0: argmax names the first.
  for (auto& x : data) x = int8_t(-(x & 0x7f));
  const uint64_t first = (1ull << 32) + 1 + seed % (1ull << 19);
  data[first] = 1;
  data[n - 1] = 1;
  offset_buffer<int8_t> marked(data, 0);
  const auto args = runner.run<key_value<int8_t>>(s.size(), [&](void* t, size_t& b, key_value<int8_t>* o) {
    return segmented_argmax(t, b, marked.get(), o, s.size(), off.begin, off.end);
  });
  EXPECT_EQ(args[0].index, first) << "seed " << seed;
  EXPECT_EQ(args[3].index, first - ((1ull << 31) + 5)) << "the index within the segment, seed " << seed;
  EXPECT_EQ(args[4].index, 0u);
}

// Bad arguments are error codes. The pointer and alignment checks come before any device is asked,
// so they run without one; too little temp storage needs the device's size.
TEST(SegmentedReduce, BadArgumentsAreErrorCodes) {
  auto* fake = reinterpret_cast<void*>(uintptr_t(0x10000));  // never dereferenced: each call fails first
  const auto* in = reinterpret_cast<const float*>(uintptr_t(0x20000));
  auto* out = reinterpret_cast<float*>(uintptr_t(0x30000));
  const auto* off = reinterpret_cast<const int32_t*>(uintptr_t(0x40000));
  size_t bytes = 1 << 20;
  const int32_t* no_offsets = nullptr;
  EXPECT_EQ(segmented_reduce(fake, bytes, in, out, 10, no_offsets, off, plus{}, 0.0f), cudaErrorInvalidValue);
  EXPECT_EQ(segmented_reduce(fake, bytes, in, out, 10, off, no_offsets, plus{}, 0.0f), cudaErrorInvalidValue);
  EXPECT_EQ(segmented_reduce(fake, bytes, in, static_cast<float*>(nullptr), 10, off, off + 1, plus{}, 0.0f),
            cudaErrorInvalidValue);
  EXPECT_EQ(segmented_reduce(fake, bytes, static_cast<const float*>(nullptr), out, 10, off, off + 1, plus{}, 0.0f),
            cudaErrorInvalidValue);
  EXPECT_EQ(segmented_reduce(fake, bytes, static_cast<const float*>(nullptr), uint64_t(1), out, 10, off, off + 1,
                             plus{}, 0.0f),
            cudaErrorInvalidValue);
  EXPECT_EQ(segmented_reduce(fake, bytes, in + 0, out, 10, reinterpret_cast<const int32_t*>(uintptr_t(0x40002)),
                             off, plus{}, 0.0f),
            cudaErrorMisalignedAddress);
  EXPECT_EQ(segmented_reduce(static_cast<char*>(fake) + 4, bytes, in, out, 10, off, off + 1, plus{}, 0.0f),
            cudaErrorMisalignedAddress);
  EXPECT_EQ(segmented_argmax(fake, bytes, reinterpret_cast<const float*>(uintptr_t(0x20002)),
                             reinterpret_cast<key_value<float>*>(uintptr_t(0x30000)), 10, off, off + 1),
            cudaErrorMisalignedAddress);
  // num_segments × segment_size beyond 64 bits.
  EXPECT_EQ(segmented_reduce(fake, bytes, in, out, uint64_t(1) << 40, uint64_t(1) << 30, plus{}, 0.0f),
            cudaErrorInvalidValue);

  WARPFOLD_REQUIRE_GPU();
  size_t needed = 0;
  ASSERT_EQ(segmented_reduce(nullptr, needed, in, out, 10, off, off + 1, plus{}, 0.0f), cudaSuccess);
  void* temp = nullptr;
  ASSERT_EQ(cudaMalloc(&temp, needed), cudaSuccess);
  size_t short_by_one = needed - 1;
  EXPECT_EQ(segmented_reduce(temp, short_by_one, in, out, 10, off, off + 1, plus{}, 0.0f), cudaErrorInvalidValue);
  // The temp size depends on the device and types, not on the segments or their offsets.
  size_t for_more = 0;
  ASSERT_EQ(segmented_reduce(nullptr, for_more, in, out, uint64_t(1) << 33, off, off + 1, plus{}, 0.0f), cudaSuccess);
  EXPECT_EQ(for_more, needed);
  cudaFree(temp);
}

}  // namespace
