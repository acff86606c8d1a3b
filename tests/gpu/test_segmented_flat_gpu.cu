// warpfold::segmented_reduce over offsets in calls of detail::kFlatMinSegments segments or more,
// which the flat kernel serves up to the warp class and the segments kernel beyond it: every
// class, CSR, shuffled, overlapping and reversed offsets, inputs at odd places, clamped offsets,
// NaN and infinities, the types the flat kernel folds, and the same bits for a segment whatever
// its neighbours in the call.
#include "gpu/segmented_test_support.cuh"

#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// The smallest call the flat kernel takes, within the sanitizer's size cap (2^20 elements):
// kFlatMinSegments segments, most of up to 5 elements, a fifth of 9 to 16 (its rows), two longer
// than kFlatMax (the segments kernel's).
std::vector<uint64_t> smallest_flat_lengths(uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<uint64_t> lengths(detail::kFlatMinSegments);
  for (uint64_t& len : lengths) len = gen() % 5 == 0 ? 9 + gen() % 8 : gen() % 6;
  for (int k = 0; k < 2; ++k) lengths[gen() % lengths.size()] = detail::kFlatMax + 1 + gen() % 100;
  return lengths;
}

// `count` lengths (at least kFlatMinSegments): every class up to the warp class, and where
// `with_block`, block-class ones and a long one; without, none longer than kFlatMax, so that the
// flat kernel leaves nothing to the segments kernel. `tiny`: most of them 8 elements or fewer;
// `only_tiny`: all of them.
std::vector<uint64_t> flat_call_lengths(uint64_t seed, unsigned elem_bytes, size_t count, bool with_block,
                                        bool tiny = false, bool only_tiny = false) {
  std::mt19937_64 gen(seed);
  const uint64_t warp_max = detail::warp_max_items(elem_bytes);
  std::vector<uint64_t> lengths(count);
  for (uint64_t& len : lengths) {
    if (only_tiny) {
      len = gen() % (detail::kFlatAloneMax + 1);
      continue;
    }
    const uint64_t pick = tiny && gen() % 400 != 0 ? gen() % 350 : gen() % 1000;
    len = pick < 100   ? 0
          : pick < 350 ? 1 + gen() % 8
          : pick < 900 ? 9 + gen() % 120
          : pick < 990 ? 129 + gen() % 400
          : pick < 998 ? 529 + gen() % (warp_max - 528)
          : with_block ? warp_max + 1 + gen() % (2 * warp_max)
                       : warp_max;
  }
  if (with_block) {
    lengths[gen() % count] = (uint64_t(1) << 18) + gen() % 1000;
  } else {
    for (uint64_t& len : lengths) len = std::min<uint64_t>(len, detail::kFlatMax);
  }
  return lengths;
}

// Values whose sums are exact in any order (quarters for floating types, small integers else),
// with, where `specials`, a NaN, an infinity or both in about one segment in 50.
template <class T>
std::vector<T> flat_values(const segment_set& s, uint64_t seed, bool specials) {
  std::vector<T> data;
  if constexpr (std::is_floating_point_v<T>) {
    data = quarter_values<T>(s.n, seed);
  } else {
    data = random_values<T>(s.n, seed, -1000, 1000);
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!specials) return data;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    std::mt19937_64 gen(seed + 1);
    for (size_t k = 0; k < s.size(); ++k) {
      const segment_range g = range_of(s, k, false);
      if (g.len == 0 || gen() % 50 != 0) continue;
      const uint64_t pick = gen() % 3;
      data[g.begin + gen() % g.len] = pick == 0 ? nan : inf;
      if (pick == 2) data[g.begin + gen() % g.len] = -inf;
    }
  }
  return data;
}

// `count` lengths in groups of 32: about a third of the groups (drawn) hold one segment of 9 to
// 40 elements, the others only segments of up to 3 elements. Enough groups that every warp of the
// flat kernel takes several, so that its runs of short groups go in pairs, continue and end in
// each way; few elements in all (within the sanitizer's cap).
std::vector<uint64_t> short_run_lengths(uint64_t seed, size_t count) {
  std::mt19937_64 gen(seed);
  std::vector<uint64_t> lengths(count);
  for (size_t g = 0; g < count; g += 32) {
    const size_t in_group = std::min<size_t>(32, count - g);
    for (size_t k = g; k < g + in_group; ++k) lengths[k] = gen() % 4;
    if (gen() % 3 == 0) lengths[g + gen() % in_group] = 9 + gen() % 32;
  }
  return lengths;
}

struct flat_case {
  size_t count = detail::kFlatMinSegments + 1000;
  bool csr = true, with_block = true, with_length = false, specials = false, tiny = false, only_tiny = false,
       smallest = false, short_runs = false;
  size_t shift = 0;
};

// One call of the case's segments with `op` and `init`, every output against the reference (exact:
// the data's sums are exact in any order), then again on the same temp storage, the same bits.
template <class T, class Offset, class Op>
void check_flat_call(const flat_case& c, Op op, T init, const std::string& what, segmented_runner* shared = nullptr) {
  const uint64_t seed = new_seed();
  std::vector<uint64_t> lengths = c.smallest     ? smallest_flat_lengths(seed)
                                  : c.short_runs ? short_run_lengths(seed, c.count)
                                                 : flat_call_lengths(seed, sizeof(T), c.count, c.with_block, c.tiny,
                                                                     c.only_tiny);
  segment_set s = lay_out(lengths, seed + 1, c.csr);
  WARPFOLD_REQUIRE_TEST_SIZE(s.n);
  if (c.with_length) {  // offsets outside the input, clamped to it
    const int64_t n = int64_t(s.n);
    std::mt19937_64 gen(seed + 2);
    for (const auto& [b, e] : std::vector<std::pair<int64_t, int64_t>>{{-5, 30}, {n - 20, n + 100}, {n + 1, n + 50}}) {
      const size_t k = gen() % s.size();
      s.csr = false;
      s.begin.insert(s.begin.begin() + k, b);
      s.end.insert(s.end.begin() + k, e);
    }
  }
  const std::vector<T> data = flat_values<T>(s, seed + 3, c.specials);
  offset_buffer<T> in(data, c.shift);
  const device_offsets<Offset> off(s);
  segmented_runner own;
  segmented_runner& runner = shared != nullptr ? *shared : own;
  const auto call = [&](void* t, size_t& b, T* o) {
    return c.with_length ? segmented_reduce(t, b, in.get(), s.n, o, s.size(), off.begin, off.end, op, init)
                         : segmented_reduce(t, b, in.get(), o, s.size(), off.begin, off.end, op, init);
  };
  const std::string where = what + (c.csr ? ", CSR" : ", begin/end") + ", shift " + std::to_string(c.shift) +
                            (c.with_length ? ", with the length" : "") + ", seed " + std::to_string(seed);
  const std::vector<T> got = runner.run<T>(s.size(), call);
  for (size_t k = 0; k < s.size(); ++k) {
    const segment_range r = range_of(s, k, c.with_length);
    const T want = reference_fold(r.len, init, op, [&](uint64_t j) { return data[r.begin + j]; });
    ASSERT_TRUE(same_value(got[k], want)) << where << ": segment " << k << " of length " << r.len << ", got "
                                          << got[k] << ", expected " << want;
  }
  const std::vector<T> again = runner.run<T>(s.size(), call);
  ASSERT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(T)), 0) << "not reproducible: " << where;
}

// The case's float sums (or, `as_double`, double sums with int64 offsets) with CSR offsets and
// with begin and end arrays (shuffled, with gaps and reversed segments).
void check_both_layouts(flat_case c, float init, const std::string& what, bool as_double = false) {
  for (bool csr : {true, false}) {
    c.csr = csr;
    if (as_double) {
      check_flat_call<double, int64_t>(c, plus{}, double(init), what);
    } else {
      check_flat_call<float, int32_t>(c, plus{}, init, what);
    }
  }
}

TEST(SegmentedFlat, FloatSumsOfEveryClassAndLayout) {
  WARPFOLD_REQUIRE_GPU();
  for (size_t shift : {0, 1, 3}) {
    flat_case c;
    c.shift = shift;
    check_both_layouts(c, 0.5f, "float sum");
  }
}

// Calls whose segments are all of up to kFlatMax elements: the segments kernel after the flat one
// finds nothing left and ends at once, on temp storage whose last call left a long segment.
TEST(SegmentedFlat, CallsWithNothingLeft) {
  WARPFOLD_REQUIRE_GPU();
  segmented_runner runner;
  for (bool with_block : {true, false, true, false}) {
    flat_case c;
    c.with_block = with_block;
    c.count = detail::kFlatMinSegments;
    check_flat_call<float, int64_t>(c, plus{}, -0.25f, with_block ? "with long segments" : "with nothing left",
                                    &runner);
  }
}

// The smallest flat call, which the sanitizer's capped pass runs too.
TEST(SegmentedFlat, SmallestCall) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.smallest = true;
  c.shift = 1;
  check_both_layouts(c, 0.5f, "smallest flat call");
}

// Segments of mostly 8 elements or fewer, which the flat kernel folds one per lane; then only such
// segments, the last group partial.
TEST(SegmentedFlat, TinySegments) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.tiny = true;
  c.shift = 3;
  check_both_layouts(c, 1.0f, "tiny segments");
  c.only_tiny = true;
  c.with_block = false;
  c.count = detail::kFlatMinSegments + 32 * 37 + 5;
  check_both_layouts(c, 1.0f, "only tiny segments");
}

// Runs of groups without a segment longer than 8 elements, which a warp takes two at a time, broken
// at random by groups with a longer one: float and double sums, int64 sums, and float maxima over
// NaN and infinities with clamped offsets (whose three inserted segments are longer).
TEST(SegmentedFlat, RunsOfShortGroups) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.short_runs = true;
  c.count = (size_t(1) << 19) + 37;
  c.shift = 1;
  check_both_layouts(c, 1.0f, "runs of short groups");
  check_both_layouts(c, 0.5f, "runs of short groups, double", true);
  check_flat_call<int64_t, int64_t>(c, plus{}, int64_t(7), "runs of short groups, int64 sum");
  c.with_length = true;
  c.specials = true;
  check_flat_call<float, int32_t>(c, maximum{}, -100.0f,
                                  "runs of short groups, float maximum with NaN and infinities");
}

TEST(SegmentedFlat, ClampedOffsetsNeverReadOutside) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.with_length = true;
  c.shift = 1;
  check_both_layouts(c, 0.25f, "double sum, clamped", true);
}

// A NaN makes a segment's sum and maximum NaN; +inf and -inf sum to NaN.
TEST(SegmentedFlat, NanAndInfinities) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.specials = true;
  c.shift = 2;
  check_flat_call<float, int32_t>(c, plus{}, 0.0f, "float sum with NaN and infinities");
  check_flat_call<float, int32_t>(c, maximum{}, -100.0f, "float maximum with NaN and infinities");
  c.csr = false;
  check_flat_call<double, int32_t>(c, minimum{}, 100.0, "double minimum with NaN and infinities");
}

TEST(SegmentedFlat, IntegerSumsAndMaxima) {
  WARPFOLD_REQUIRE_GPU();
  flat_case c;
  c.shift = 1;
  check_flat_call<int64_t, int64_t>(c, plus{}, int64_t(7), "int64 sum");
  c.csr = false;
  check_flat_call<int32_t, int32_t>(c, maximum{}, int32_t(-5000), "int32 maximum");
}

// The kernel nodes of a captured call of float sums over segments of these lengths, and the
// outputs of two replays of it (each on outputs poisoned first), checked against the reference.
size_t kernels_of_captured_call(const std::vector<uint64_t>& lengths, uint64_t seed) {
  const segment_set s = lay_out(lengths, seed + 1, true);
  const std::vector<float> data = quarter_values<float>(s.n, seed + 2);
  offset_buffer<float> in(data, 1);
  const device_offsets<int32_t> off(s);
  const device_vector<float> out(std::vector<float>(s.size()));
  size_t bytes = 0;
  EXPECT_EQ(segmented_reduce(nullptr, bytes, in.get(), out.get(), s.size(), off.begin, off.end, plus{}, 0.5f),
            cudaSuccess);
  const device_vector<char> temp(std::vector<char>(bytes, 0x5a));
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  // One call outside the capture first: the kernels' launch handles and capacities are then known,
  // and the replays meet the words it left under another tag.
  EXPECT_EQ(segmented_reduce(temp.get(), bytes, in.get(), out.get(), s.size(), off.begin, off.end, plus{}, 0.5f, stream),
            cudaSuccess);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(segmented_reduce(temp.get(), bytes, in.get(), out.get(), s.size(), off.begin, off.end, plus{}, 0.5f, stream),
            cudaSuccess);
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  size_t nodes = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  std::vector<cudaGraphNode_t> node(nodes);
  EXPECT_EQ(cudaGraphGetNodes(graph, node.data(), &nodes), cudaSuccess);
  size_t kernels = 0;
  for (cudaGraphNode_t n : node) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(n, &type), cudaSuccess);
    kernels += type == cudaGraphNodeTypeKernel;
  }
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {  // the graph's memset clears the words of the one before
    EXPECT_EQ(cudaMemsetAsync(out.get(), 0x5a, s.size() * sizeof(float), stream), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    std::vector<float> got(s.size());
    EXPECT_EQ(cudaMemcpyAsync(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (size_t k = 0; k < s.size(); ++k) {
      const segment_range r = range_of(s, k, false);
      const float want = reference_fold(r.len, 0.5f, plus{}, [&](uint64_t j) { return data[r.begin + j]; });
      if (!same_value(got[k], want)) {
        ADD_FAILURE() << "replay " << replay << ", segment " << k << " of " << s.size() << ": " << got[k]
                      << " against " << want << ", seed " << seed;
        break;
      }
    }
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  return kernels;
}

// A call of kFlatMinSegments segments runs the flat kernel and then the segments kernel, one
// segment fewer the segments kernel alone; both, captured in a graph and replayed, give the
// reference.
TEST(SegmentedFlat, CapturedCallsHoldTheFlatKernelFromItsThreshold) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  std::vector<uint64_t> lengths = smallest_flat_lengths(seed);
  EXPECT_EQ(kernels_of_captured_call(lengths, seed), 2u);
  lengths.pop_back();
  EXPECT_EQ(kernels_of_captured_call(lengths, seed), 1u);
}

// The same segments in other arrangements of a flat call: a warp's segments then lie out of order
// (shuffled) or overlap (each listed twice), and some warps' 32 have other neighbours.
template <class T>
void check_flat_bits_in_any_arrangement(size_t shift) {
  const uint64_t seed = new_seed();
  const segment_set s = lay_out(flat_call_lengths(seed, sizeof(T), detail::kFlatMinSegments + 500, true), seed + 1, true);
  WARPFOLD_REQUIRE_TEST_SIZE(s.n);
  check_same_bits_in_any_arrangement(s, order_sensitive_values<T>(s.n, seed + 2), shift, seed);
}

TEST(SegmentedFlat, SegmentsGiveTheSameBitsInAnyArrangement) {
  WARPFOLD_REQUIRE_GPU();
  for (size_t shift : all_or_one<size_t>({0, 3})) {
    check_flat_bits_in_any_arrangement<float>(shift);
    check_flat_bits_in_any_arrangement<double>(shift);
  }
}

}  // namespace
