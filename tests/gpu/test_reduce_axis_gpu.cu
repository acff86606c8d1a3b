// warpfold::reduce_axis and the fixed-size segmented_reduce against CPU references: rows,
// columns and strided rows; transposed, sliced and flipped views of matrices at odd offsets; 3-D
// shapes; zero extents; argmin/argmax along the axis with ties and NaN; more than 2^31 segments;
// shapes that overflow.
#include "gpu/segmented_test_support.cuh"

#include "harness/run_context.hpp"

#include <array>
#include <limits>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// A view of a storage array: its shape, and the storage index of its element (0, 0, 0).
struct view_case {
  std::string name;
  axis_shape shape;
  int64_t start = 0;
  uint64_t storage = 0;
};

// The views of x[rows][cols], row-major, `shift` elements into its storage, that reach every
// kernel: rows, columns and strided rows, with positive and negative strides.
std::vector<view_case> matrix_views(uint64_t rows, uint64_t cols, int64_t shift) {
  const int64_t r = int64_t(rows), c = int64_t(cols);
  const uint64_t storage = rows * cols + uint64_t(shift);
  return {
      {"x.sum(1)", axis_shape::contiguous(rows, cols, 1), shift, storage},
      {"x.sum(0)", axis_shape::contiguous(1, rows, cols), shift, storage},
      {"x.T.sum(0)", {1, cols, rows, 0, 1, c}, shift, storage},
      {"x.T.sum(1)", {cols, rows, 1, 1, c, 1}, shift, storage},
      {"x[:, ::2].sum(1)", {rows, (cols + 1) / 2, 1, c, 2, 1}, shift, storage},
      {"x[::3].sum(0)", {1, (rows + 2) / 3, cols, 0, 3 * c, 1}, shift, storage},
      {"x.flip(1).sum(1)", {rows, cols, 1, c, -1, 1}, shift + c - 1, storage},
      {"x.flip(0).sum(0)", {1, rows, cols, 0, -c, 1}, shift + (r - 1) * c, storage},
  };
}

std::string describe(const view_case& v, uint64_t seed) {
  const axis_shape& s = v.shape;
  return v.name + " [" + std::to_string(s.outer) + "][" + std::to_string(s.axis) + "][" + std::to_string(s.inner) +
         "] strides (" + std::to_string(s.outer_stride) + ", " + std::to_string(s.axis_stride) + ", " +
         std::to_string(s.inner_stride) + ") from " + std::to_string(v.start) + ", seed " + std::to_string(seed);
}

// Element (o, a, i) of a view, from the host storage.
template <class T>
auto element_of(const std::vector<T>& storage, const view_case& v, uint64_t o, uint64_t i) {
  return [&storage, &v, o, i](uint64_t a) {
    const axis_shape& s = v.shape;
    return storage[size_t(v.start + int64_t(o) * s.outer_stride + int64_t(a) * s.axis_stride + int64_t(i) * s.inner_stride)];
  };
}

// reduce_axis over a view against the reference, twice on the same temp storage (the same bits;
// once in a representative run).
template <class T, class Acc, class Op>
void check_axis(const std::vector<T>& storage, const view_case& v, Op op, Acc init, uint64_t seed) {
  const axis_shape& s = v.shape;
  const device_vector<T> d(storage);
  segmented_runner runner;
  const auto call = [&](void* t, size_t& b, Acc* o) { return reduce_axis(t, b, d.get() + v.start, o, s, op, init); };
  const std::vector<Acc> got = runner.run<Acc>(s.outer * s.inner, call);
  for (uint64_t o = 0; o < s.outer; ++o) {
    for (uint64_t i = 0; i < s.inner; ++i) {
      const Acc want = reference_fold(s.axis, init, op, element_of(storage, v, o, i));
      ASSERT_TRUE(same_value(got[o * s.inner + i], want))
          << describe(v, seed) << ": output (" << o << ", " << i << ") is " << double(got[o * s.inner + i])
          << ", expected " << double(want);
    }
  }
  if (representative_run()) return;
  const std::vector<Acc> again = runner.run<Acc>(s.outer * s.inner, call);
  ASSERT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(Acc)), 0) << "not reproducible: " << describe(v, seed);
}

template <class T, class Make, class Check>
void for_each_matrix_view(const std::vector<std::pair<uint64_t, uint64_t>>& sizes, Make make, Check check) {
  for (const auto& [rows, cols] : sizes) {
    if (rows * cols > max_test_n()) continue;
    for (int64_t shift : all_or_one<int64_t>({0, 3})) {
      const uint64_t seed = new_seed();
      const std::vector<T> storage = make(rows * cols + uint64_t(shift), seed);
      for (const view_case& v : matrix_views(rows, cols, shift)) check(storage, v, seed);
    }
  }
}

// Shapes from one element to few huge rows (long rows cut into pieces) and narrow columns over a
// long axis (the axis cut into chunks), odd sizes between.
const std::vector<std::pair<uint64_t, uint64_t>>& matrix_sizes() {
  static const std::vector<std::pair<uint64_t, uint64_t>> sizes{
      {1, 1},     {3, 5},      {7, 64},        {64, 7},    {1000, 3},         {3, 1000},        {257, 129},
      {1, 100003}, {100003, 1}, {32768, 33},    {2048, 1025}, {4, 1 << 20},   {1 << 20, 4},     {1, 1 << 22},
      {3, 9000},  {9000, 31}};
  return sizes;
}

TEST(ReduceAxis, FloatSumsOfEveryView) {
  WARPFOLD_REQUIRE_GPU();
  for_each_matrix_view<float>(matrix_sizes(), quarter_values<float>,
                              [](const std::vector<float>& x, const view_case& v, uint64_t seed) {
                                check_axis<float, float>(x, v, plus{}, 0.5f, seed);
                              });
}

TEST(ReduceAxis, Int8SumsIntoInt64) {
  WARPFOLD_REQUIRE_GPU();
  const auto bytes = [](uint64_t n, uint64_t seed) { return random_values<int8_t>(n, seed, -128, 127); };
  for_each_matrix_view<int8_t>({{5, 17}, {100, 4097}, {4097, 100}, {2, 1 << 20}, {1 << 18, 3}, {1, 100003}, {100003, 1}}, bytes,
                               [](const std::vector<int8_t>& x, const view_case& v, uint64_t seed) {
                                 check_axis<int8_t, int64_t>(x, v, plus{}, int64_t(7), seed);
                               });
}

// The middle extent of 3-D tensors, contiguous and from an odd offset; an extent of one is a map.
TEST(ReduceAxis, MiddleAxisOfThreeDimensions) {
  WARPFOLD_REQUIRE_GPU();
  for (const auto& [a, b, c] : std::vector<std::array<uint64_t, 3>>{
           {2, 3, 5}, {4, 37, 7}, {5, 1000, 33}, {3, 9, 1000}, {7, 1, 1001}, {3, 1, 1}, {1, 1, 70001}}) {
    for (int64_t shift : all_or_one<int64_t>({0, 1})) {
      const uint64_t seed = new_seed();
      const std::vector<float> x = quarter_values<float>(a * b * c + uint64_t(shift), seed);
      const uint64_t sizes[] = {a, b, c};
      const view_case v{"x.sum(1) of 3 dims", contiguous_axis_shape(sizes, 3, 1, 1), shift, a * b * c + uint64_t(shift)};
      check_axis<float, float>(x, v, plus{}, 0.5f, seed);
    }
  }
}

TEST(ReduceAxis, ArgminArgmaxAlongTheAxis) {
  WARPFOLD_REQUIRE_GPU();
  const auto ties = [](uint64_t n, uint64_t seed) {  // quarters in [-2, 2]: many ties; a few NaNs
    std::vector<float> v = random_values<float>(n, seed, -2, 2);
    for (auto& x : v) x = std::round(x * 4) / 4;
    std::mt19937_64 gen(seed);
    for (int k = 0; k < 8; ++k) v[gen() % n] = std::numeric_limits<float>::quiet_NaN();
    return v;
  };
  for_each_matrix_view<float>({{3, 5}, {64, 7}, {1000, 33}, {33, 1000}, {2, 100003}, {1 << 18, 3}, {1, 100003}, {100003, 1}},
                              ties,
                              [](const std::vector<float>& x, const view_case& v, uint64_t seed) {
                                const axis_shape& s = v.shape;
                                const device_vector<float> d(x);
                                segmented_runner runner;
                                for (bool minimum : {true, false}) {
                                  const auto got = runner.run<key_value<float>>(
                                      s.outer * s.inner, [&](void* t, size_t& b, key_value<float>* o) {
                                        return minimum ? argmin_axis(t, b, d.get() + v.start, o, s)
                                                       : argmax_axis(t, b, d.get() + v.start, o, s);
                                      });
                                  for (uint64_t o = 0; o < s.outer; ++o) {
                                    for (uint64_t i = 0; i < s.inner; ++i) {
                                      const auto want = reference_arg<float>(s.axis, minimum, element_of(x, v, o, i));
                                      ASSERT_TRUE(same_value(got[o * s.inner + i], want))
                                          << (minimum ? "argmin " : "argmax ") << describe(v, seed) << ": output ("
                                          << o << ", " << i << ") index " << got[o * s.inner + i].index
                                          << ", expected " << want.index;
                                    }
                                  }
                                }
                              });
}

// A zero axis gives init everywhere (no element is read: a null input is no error); no outputs
// write nothing.
TEST(ReduceAxis, ZeroExtents) {
  WARPFOLD_REQUIRE_GPU();
  segmented_runner runner;
  for (const axis_shape& s : {axis_shape::contiguous(5, 0, 1), axis_shape::contiguous(1, 0, 7), axis_shape{3, 0, 4, 9, 9, 9}}) {
    const auto got = runner.run<float>(s.outer * s.inner, [&](void* t, size_t& b, float* o) {
      return reduce_axis(t, b, static_cast<const float*>(nullptr), o, s, plus{}, 2.5f);
    });
    for (float x : got) ASSERT_EQ(x, 2.5f);
    const auto args = runner.run<key_value<float>>(s.outer * s.inner, [&](void* t, size_t& b, key_value<float>* o) {
      return argmax_axis(t, b, static_cast<const float*>(nullptr), o, s);
    });
    for (const auto& x : args) ASSERT_TRUE(x.index == 0 && x.value == 0.0f);
  }
  for (const axis_shape& s : {axis_shape::contiguous(0, 5, 1), axis_shape::contiguous(3, 5, 0)}) {
    const auto got = runner.run<float>(0, [&](void* t, size_t& b, float* o) {
      return reduce_axis(t, b, static_cast<const float*>(nullptr), o, s, plus{}, 2.5f);
    });
    EXPECT_TRUE(got.empty());
  }
}

// Order-sensitive data: within the bound of any order, and the same bits run to run.
TEST(ReduceAxis, SumsWithinBoundAndReproducible) {
  WARPFOLD_REQUIRE_GPU();
  for_each_matrix_view<float>({{1000, 3}, {3, 100003}, {2048, 1025}, {1, 1 << 22}}, order_sensitive_values<float>,
                              [](const std::vector<float>& x, const view_case& v, uint64_t seed) {
                                const axis_shape& s = v.shape;
                                const device_vector<float> d(x);
                                segmented_runner runner;
                                const auto call = [&](void* t, size_t& b, float* o) {
                                  return reduce_axis(t, b, d.get() + v.start, o, s, plus{}, 0.0f);
                                };
                                const auto got = runner.run<float>(s.outer * s.inner, call);
                                const auto again = runner.run<float>(s.outer * s.inner, call);
                                for (uint64_t k = 0; k < got.size(); ++k) {
                                  const auto element = element_of(x, v, k / s.inner, k % s.inner);
                                  ASSERT_TRUE(within_sum_bound(s.axis, element, got[k]))
                                      << describe(v, seed) << ", output " << k;
                                  ASSERT_TRUE(bitwise_equal(got[k], again[k])) << describe(v, seed) << ", output " << k;
                                }
                              });
}

// x.sum(dim=0) of one to three wide rows is a map (each output folds its column's rows in row
// order); the same rows under a second outer index take the columns kernel, whose lanes fold
// their rows in the same order: the same bits, sums of order-sensitive data and argmax with NaN,
// vectors and single elements (an odd start), rows far apart and flipped.
TEST(ReduceAxis, FewWideRowsGiveTheColumnsKernelsBits) {
  WARPFOLD_REQUIRE_GPU();
  for (uint64_t rows : {2ull, 3ull}) {
    for (uint64_t cols : {128ull, 1000ull, 70001ull}) {
      for (int64_t shift : {0, 1}) {
        const uint64_t seed = new_seed();
        // Storage [2][rows][cols] from `shift`: outer index 1 reads the same values as the 2-D view.
        const uint64_t block = rows * cols;
        std::vector<float> x = order_sensitive_values<float>(2 * block + uint64_t(shift), seed);
        x[size_t(shift) + block + cols / 2] = std::numeric_limits<float>::quiet_NaN();
        std::copy(x.begin() + shift + int64_t(block), x.end(), x.begin() + shift);
        const device_vector<float> d(x);
        const auto described = [&](const char* what) {
          return std::string(what) + " of " + std::to_string(rows) + " x " + std::to_string(cols) + " from " +
                 std::to_string(shift) + ", seed " + std::to_string(seed);
        };
        const axis_shape two_outer{2, rows, cols, int64_t(block), int64_t(cols), 1};
        const axis_shape flipped{1, rows, cols, 0, -int64_t(cols), 1};
        segmented_runner runner;
        const auto both = runner.run<float>(2 * cols, [&](void* t, size_t& b, float* o) {
          return reduce_axis(t, b, d.get() + shift, o, two_outer, plus{}, 0.25f);
        });
        const auto alone = runner.run<float>(cols, [&](void* t, size_t& b, float* o) {
          return reduce_axis(t, b, d.get() + shift, o, axis_shape::contiguous(1, rows, cols), plus{}, 0.25f);
        });
        for (uint64_t k = 0; k < cols; ++k) {
          ASSERT_TRUE(bitwise_equal(alone[k], both[k])) << described("sum") << ", column " << k;
          ASSERT_TRUE(bitwise_equal(alone[k], both[cols + k])) << described("sum") << ", column " << k;
        }
        const auto extremes = runner.run<key_value<float>>(2 * cols, [&](void* t, size_t& b, key_value<float>* o) {
          return argmax_axis(t, b, d.get() + shift, o, two_outer);
        });
        const auto extremes_alone = runner.run<key_value<float>>(cols, [&](void* t, size_t& b, key_value<float>* o) {
          return argmax_axis(t, b, d.get() + shift, o, axis_shape::contiguous(1, rows, cols));
        });
        for (uint64_t k = 0; k < cols; ++k) {
          ASSERT_TRUE(bitwise_equal(extremes_alone[k].value, extremes[k].value)) << described("argmax") << ", column " << k;
          ASSERT_EQ(extremes_alone[k].index, extremes[k].index) << described("argmax") << ", column " << k;
        }
        // Flipped rows: the last row first, read backwards in memory; folded in row order, as the
        // reference folds them.
        const auto backwards = runner.run<float>(cols, [&](void* t, size_t& b, float* o) {
          return reduce_axis(t, b, d.get() + shift + int64_t(block - cols), o, flipped, plus{}, 0.25f);
        });
        const view_case v{"x.flip(0).sum(0)", flipped, shift + int64_t(block - cols), 2 * block + uint64_t(shift)};
        for (uint64_t k = 0; k < cols; ++k) {
          const float want = reference_fold(rows, 0.25f, plus{}, element_of(x, v, 0, k));
          ASSERT_TRUE(same_value(backwards[k], want)) << described("flipped sum") << ", column " << k << ": "
                                                      << backwards[k] << ", expected " << want;
        }
      }
    }
  }
}

// Segments of one size, back to back: sums (exact) and argmax, every class of length (2^21
// elements of each, or one segment; 2^19 in a representative run).
TEST(FixedSizeSegments, SumsAndArgmaxOfEverySize) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t budget = uint64_t(1) << (representative_run() ? 19 : 21);
  for (uint64_t size : {0ull, 1ull, 3ull, 4ull, 5ull, 64ull, 65ull, 1000ull, 1024ull, 1025ull, 5000ull, 28673ull,
                        (1ull << 15) + 3, (1ull << 20) + 5}) {
    const uint64_t count = std::max<uint64_t>(1, std::min<uint64_t>(5000, budget / std::max<uint64_t>(size, 1)));
    if (count * size > max_test_n()) continue;
    const uint64_t seed = new_seed();
    std::vector<float> x = quarter_values<float>(count * size, seed);
    offset_buffer<float> in(x, 1);
    segmented_runner runner;
    const auto sums = runner.run<float>(count, [&](void* t, size_t& b, float* o) {
      return segmented_reduce(t, b, in.get(), o, count, size, plus{}, 0.5f);
    });
    const auto args = runner.run<key_value<float>>(count, [&](void* t, size_t& b, key_value<float>* o) {
      return segmented_argmax(t, b, in.get(), o, count, size);
    });
    for (uint64_t k = 0; k < count; ++k) {
      const auto element = [&](uint64_t j) { return x[k * size + j]; };
      ASSERT_EQ(sums[k], reference_fold(size, 0.5f, plus{}, element)) << "size " << size << ", segment " << k << ", seed " << seed;
      ASSERT_TRUE(same_value(args[k], reference_arg<float>(size, false, element)))
          << "argmax, size " << size << ", segment " << k << ", seed " << seed;
    }
  }
}

// Rows the host knows alike skip the tiles and published entries but keep the tiled path's
// folds: the same bits as those rows through offsets with the input's length, for warp-class
// rows (a warp each), whole block-class rows and rows cut into pieces, on both sides of the warp
// class's last length (3072 floats), at every alignment. Past one tile's rows, the offsets take
// tiles of several block-class rows, the first half of whose first tile comes through the stage on
// compute capability 9.0 where that tile is full and no second full tile follows (4100 floats),
// and not where it is not full (4095) or a second one follows (9000).
// Order-sensitive data would show any other order.
TEST(FixedSizeSegments, AlikeRowsGiveTheBitsOfTheSameRowsThroughOffsets) {
  WARPFOLD_REQUIRE_GPU();
  const std::vector<std::pair<uint64_t, uint64_t>> shapes{{5000, 700},  {2000, 1024}, {3000, 1025}, {1000, 3072},
                                                          {1000, 3073}, {600, 8195},  {1500, 4100}, {1200, 9000},
                                                          {2500, 4095}, {64, 1 << 16}, {5, (1 << 20) + 5}, {1, 1 << 22}};
  for (const auto& shape : shapes) {
    const uint64_t count = shape.first, size = shape.second;
    if (count * size > max_test_n()) continue;
    for (uint64_t shift : all_or_one<uint64_t>({0, 1, 3})) {
      const uint64_t seed = new_seed();
      const std::vector<float> x = order_sensitive_values<float>(count * size, seed);
      offset_buffer<float> in(x, shift);
      segment_set rows;
      rows.csr = true;
      rows.n = count * size;
      for (uint64_t k = 0; k < count; ++k) {
        rows.begin.push_back(int64_t(k * size));
        rows.end.push_back(int64_t((k + 1) * size));
      }
      const device_offsets<int64_t> off(rows);
      segmented_runner runner;
      const auto alike = runner.run<float>(count, [&](void* t, size_t& b, float* o) {
        return segmented_reduce(t, b, in.get(), o, count, size, plus{}, 0.0f);
      });
      const auto tiled = runner.run<float>(count, [&](void* t, size_t& b, float* o) {
        return segmented_reduce(t, b, in.get(), rows.n, o, count, off.begin, off.end, plus{}, 0.0f);
      });
      for (uint64_t k = 0; k < count; ++k) {
        const std::string where = std::to_string(count) + " rows of " + std::to_string(size) + ", shift " +
                                  std::to_string(shift) + ", row " + std::to_string(k) + ", seed " + std::to_string(seed);
        ASSERT_TRUE(within_sum_bound(size, [&](uint64_t j) { return x[k * size + j]; }, alike[k])) << where;
        ASSERT_TRUE(bitwise_equal(alike[k], tiled[k])) << "alike and tiled rows differ: " << where;
      }
    }
  }
}

// Rows of whole 16-byte vectors, up to a warp's 32 of them, starting on a vector boundary (the
// short-rows kernel), and the same sizes from a shifted start or one vector longer (the segments
// kernel): float and double sums, int8 into int64, argmin and argmax with ties and NaN.
template <class T, class Acc, class Make>
void check_short_rows(uint64_t size, uint64_t shift, Acc init, Make make) {
  const uint64_t count = 4099;
  const uint64_t seed = new_seed();
  const std::vector<T> x = make(count * size, seed);
  offset_buffer<T> in(x, shift);
  segmented_runner runner;
  const auto sums = runner.run<Acc>(count, [&](void* t, size_t& b, Acc* o) {
    return segmented_reduce(t, b, in.get(), o, count, size, plus{}, init);
  });
  const auto lows = runner.run<key_value<T>>(count, [&](void* t, size_t& b, key_value<T>* o) {
    return segmented_argmin(t, b, in.get(), o, count, size);
  });
  const auto highs = runner.run<key_value<T>>(count, [&](void* t, size_t& b, key_value<T>* o) {
    return segmented_argmax(t, b, in.get(), o, count, size);
  });
  for (uint64_t k = 0; k < count; ++k) {
    const auto element = [&](uint64_t j) { return x[k * size + j]; };
    const std::string where = "size " + std::to_string(size) + ", shift " + std::to_string(shift) + ", segment " +
                              std::to_string(k) + ", seed " + std::to_string(seed);
    ASSERT_TRUE(same_value(sums[k], reference_fold(size, init, plus{}, [&](uint64_t j) { return Acc(element(j)); })))
        << "sum, " << where;
    ASSERT_TRUE(same_value(lows[k], reference_arg<T>(size, true, element))) << "argmin, " << where;
    ASSERT_TRUE(same_value(highs[k], reference_arg<T>(size, false, element))) << "argmax, " << where;
  }
}

TEST(FixedSizeSegments, ShortRowsOfWholeVectors) {
  WARPFOLD_REQUIRE_GPU();
  const auto quarters_and_nan = [](uint64_t n, uint64_t seed) {  // many ties, a few NaNs
    std::vector<float> v = quarter_values<float>(n, seed);
    for (size_t i = seed % 97; i < v.size(); i += 1009) v[i] = std::numeric_limits<float>::quiet_NaN();
    return v;
  };
  for (uint64_t size : {4ull, 8ull, 12ull, 16ull, 28ull, 32ull, 64ull, 124ull, 128ull, 132ull}) {
    for (uint64_t shift : all_or_one<uint64_t>({0, 4, 1})) check_short_rows<float, float>(size, shift, 0.5f, quarters_and_nan);
  }
  for (uint64_t size : {2ull, 6ull, 64ull, 66ull}) {
    for (uint64_t shift : all_or_one<uint64_t>({0, 1})) check_short_rows<double, double>(size, shift, 0.25, quarter_values<double>);
  }
  const auto bytes = [](uint64_t n, uint64_t seed) { return random_values<int8_t>(n, seed, -128, 127); };
  for (uint64_t size : {16ull, 48ull, 512ull, 528ull}) {
    for (uint64_t shift : all_or_one<uint64_t>({0, 16, 5})) check_short_rows<int8_t, int64_t>(size, shift, int64_t(7), bytes);
  }
}

// More than 2^31 segments (int8 into int8, the sum wrapping as int8 does): 64-bit segment indices.
TEST(FixedSizeSegments, MoreThanTwoToThe31Segments) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t count = (1ull << 31) + 3, size = 2;
  WARPFOLD_REQUIRE_TEST_SIZE(count * size);
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  try {
    harness::require_free_device_memory(device, count * (size + 1) + (size_t(512) << 20), "this test");
  } catch (const std::invalid_argument& e) {
    GTEST_SKIP() << e.what();
  }
  const uint64_t seed = new_seed();
  std::vector<int8_t> x(count * size);
  std::mt19937_64 gen(seed);
  for (size_t i = 0; i < x.size(); i += 8) {
    const uint64_t bits = gen();
    std::memcpy(&x[i], &bits, std::min<size_t>(8, x.size() - i));
  }
  offset_buffer<int8_t> in(x, 0);
  segmented_runner runner;
  const auto got = runner.run<int8_t>(count, [&](void* t, size_t& b, int8_t* o) {
    return segmented_reduce(t, b, in.get(), o, count, size, plus{}, int8_t(1));
  });
  for (uint64_t k = 0; k < count; ++k) {
    const int8_t want = int8_t(uint8_t(1 + uint8_t(x[2 * k]) + uint8_t(x[2 * k + 1])));
    ASSERT_EQ(got[k], want) << "segment " << k << ", seed " << seed;
  }
}

// Shapes whose offsets or counts do not fit in 64 bits, and null or misaligned pointers, are
// error codes, found before any device is asked.
TEST(ReduceAxis, BadShapesAndPointersAreErrorCodes) {
  auto* fake = reinterpret_cast<void*>(uintptr_t(0x10000));
  const auto* in = reinterpret_cast<const float*>(uintptr_t(0x20000));
  auto* out = reinterpret_cast<float*>(uintptr_t(0x30000));
  size_t bytes = 1 << 20;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const axis_shape bad[] = {{1ull << 40, 1, 1ull << 40, 1, 1, 1},
                            {3, 3, 1, kMax / 2 + 1, 1, 1},
                            {2, 2, 1, std::numeric_limits<int64_t>::min(), 1, 1},
                            {1, 2, 2, 0, kMax / 4 + 1, 1},  // in bytes
                            axis_shape::contiguous(2, 1ull << 40, 1ull << 40)};
  for (const axis_shape& s : bad) {
    EXPECT_EQ(reduce_axis(fake, bytes, in, out, s, plus{}, 0.0f), cudaErrorInvalidValue);
    size_t query = 0;
    EXPECT_EQ(reduce_axis(nullptr, query, in, out, s, plus{}, 0.0f), cudaErrorInvalidValue);
  }
  const axis_shape ok = axis_shape::contiguous(4, 5, 6);
  EXPECT_EQ(reduce_axis(fake, bytes, static_cast<const float*>(nullptr), out, ok, plus{}, 0.0f), cudaErrorInvalidValue);
  EXPECT_EQ(reduce_axis(fake, bytes, in, static_cast<float*>(nullptr), ok, plus{}, 0.0f), cudaErrorInvalidValue);
  EXPECT_EQ(reduce_axis(fake, bytes, in + 0, reinterpret_cast<float*>(uintptr_t(0x30002)), ok, plus{}, 0.0f),
            cudaErrorMisalignedAddress);
  EXPECT_EQ(argmin_axis(static_cast<char*>(fake) + 4, bytes, in, reinterpret_cast<key_value<float>*>(out), ok),
            cudaErrorMisalignedAddress);
}

}  // namespace
