// The arithmetic of the nested launches (launch counts, padding, slots), the options check and the
// verdicts, all without a GPU. The launch counts are checked against a walk of each kernel's
// recursion, written here independently of the formulas.
#include "lab/nested/nested_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace warpfold::lab;

namespace {

// gpuRecursiveReduce and ...Nosync: a tile of `isize` launches a child while isize > 2.
uint64_t walk_chain_per_block(unsigned block) {
  uint64_t launches = 0;
  for (unsigned isize = block; isize > 2; isize >>= 1) ++launches;
  return launches;
}

// gpuRecursiveReduce2: the host starts at iStride = block / 2; every level above 1 launches one grid.
uint64_t walk_grid_chain(unsigned block) {
  uint64_t launches = 0;
  for (unsigned stride = block / 2; stride > 1; stride /= 2) ++launches;
  return launches;
}

// nestedHelloWorld: every block prints a line per thread, and launches while its size exceeds 1.
void walk_hello(unsigned grid, unsigned block, uint64_t& launches, uint64_t& lines) {
  launches = lines = 0;
  for (unsigned b = 0; b < grid; ++b) {
    for (unsigned size = block; ; size >>= 1) {
      lines += size;
      if (size == 1) break;
      ++launches;
      ++lines;  // "-------> nested execution depth"
    }
  }
}

}  // namespace

TEST(NestedPlan, TheSeedsConfigurationLaunchesAsTheBookDescribes) {
  const NestedShape s = nested_shape(uint64_t(1) << 20, 512);
  EXPECT_EQ(s.grid, 2048u);
  EXPECT_EQ(s.padded_n(), uint64_t(1) << 20);
  EXPECT_EQ(nested_child_launches(NestedVariant::nested, s.grid, s.block), 2048u * 8);
  EXPECT_EQ(nested_child_launches(NestedVariant::nested_nosync, s.grid, s.block), 2048u * 8);
  EXPECT_EQ(nested_child_launches(NestedVariant::nested2, s.grid, s.block), 8u);
  EXPECT_EQ(nested_depth(512), 9u);
  EXPECT_EQ(nested_launch_slots(s.grid, s.block), 2u * 2048 * 8 + 256);
}

TEST(NestedPlan, LaunchCountsMatchAWalkOfTheRecursion) {
  for (unsigned block = 2; block <= 1024; block *= 2) {
    for (unsigned grid : {1u, 3u, 2048u}) {
      EXPECT_EQ(nested_child_launches(NestedVariant::nested, grid, block), grid * walk_chain_per_block(block)) << block;
      EXPECT_EQ(nested_child_launches(NestedVariant::nested_nosync, grid, block), grid * walk_chain_per_block(block));
      EXPECT_EQ(nested_child_launches(NestedVariant::nested2, grid, block), walk_grid_chain(block)) << block;
    }
    EXPECT_LE(nested_depth(block), 24u) << "CDP's nesting limit";
  }
}

TEST(NestedPlan, HelloCountsMatchTheSeedsOutput) {
  // The seed's output for grid 1, block 8: 8 + 4 + 2 + 1 "Recursion=" lines and 3 "------->" lines.
  EXPECT_EQ(hello_child_launches(1, 8), 3u);
  EXPECT_EQ(hello_printed_lines(1, 8), 18u);
  for (unsigned grid : {1u, 2u, 64u}) {
    for (unsigned block : {1u, 2u, 6u, 7u, 8u, 33u, 1000u, 1024u}) {
      uint64_t launches = 0, lines = 0;
      walk_hello(grid, block, launches, lines);
      EXPECT_EQ(hello_child_launches(grid, block), launches) << grid << " x " << block;
      EXPECT_EQ(hello_printed_lines(grid, block), lines) << grid << " x " << block;
    }
  }
}

TEST(NestedPlan, ShapesPadToWholeBlocks) {
  EXPECT_EQ(nested_shape(1, 32).grid, 1u);
  EXPECT_EQ(nested_shape(1, 32).padded_n(), 32u);
  EXPECT_EQ(nested_shape(1000, 64).grid, 16u);
  EXPECT_EQ(nested_shape(1000, 64).padded_n(), 1024u);
  EXPECT_EQ(nested_shape(1024, 64).padded_n(), 1024u);
  EXPECT_EQ(nested_shape((uint64_t(1) << 20) + 7, 512).grid, 2049u);
  EXPECT_THROW(nested_shape(10, 0), std::invalid_argument);
}

TEST(NestedPlan, Log2ExactRejectsNonPowersOfTwo) {
  EXPECT_EQ(log2_exact(1), 0u);
  EXPECT_EQ(log2_exact(1024), 10u);
  EXPECT_THROW(log2_exact(0), std::invalid_argument);
  EXPECT_THROW(log2_exact(96), std::invalid_argument);
}

TEST(NestedOptions, ValidationNamesTheProblem) {
  NestedOptions o;
  EXPECT_NO_THROW(validate_nested_options(o));
  o.n = 0;
  EXPECT_THROW(validate_nested_options(o), std::invalid_argument);
  o.n = 1000;
  for (unsigned block : {0u, 16u, 48u, 2048u}) {
    o.block = block;
    EXPECT_THROW(validate_nested_options(o), std::invalid_argument) << block;
  }
  o.block = 512;
  o.reps = 0;
  EXPECT_THROW(validate_nested_options(o), std::invalid_argument);
  o.reps = 1;
  o.n = uint64_t(1) << 24;  // 32768 blocks x 8 launches: exactly the cap
  EXPECT_NO_THROW(validate_nested_options(o));
  o.block = 256;  // 65536 blocks x 7 launches: over it
  try {
    validate_nested_options(o);
    ADD_FAILURE() << "458752 device-side launches accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("458752 device-side launches"), std::string::npos) << what;
    EXPECT_NE(what.find("--block"), std::string::npos) << what;
  }
  o.n = kNestedMaxN + 1;
  EXPECT_THROW(validate_nested_options(o), std::invalid_argument);
}

TEST(NestedOptions, HelloValidationNamesTheProblem) {
  NestedHelloOptions o;
  EXPECT_NO_THROW(validate_hello_options(o));
  const std::vector<std::pair<unsigned, unsigned>> bad{{0u, 8u}, {kHelloMaxGrid + 1, 8u}, {1u, 0u}, {1u, kHelloMaxBlock + 1}};
  for (auto [grid, block] : bad) {
    o.grid = grid;
    o.block = block;
    EXPECT_THROW(validate_hello_options(o), std::invalid_argument) << grid << " x " << block;
  }
  o.grid = 1;
  o.block = 1;
  EXPECT_NO_THROW(validate_hello_options(o));
}

TEST(NestedCheck, VerdictsNameEveryProblem) {
  NestedCheck c;
  c.expected = c.got = 1234;
  c.expected_launches = 16384;
  c.record.launches = 16384;
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.verdict(), "ok");

  c.got = 1000;
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.verdict(), "WRONG expected 1234 got 1000");

  c.record.launches = 16000;
  c.record.failures = 384;
  c.record.first_error = static_cast<int>(cudaErrorLaunchPendingCountExceeded);
  EXPECT_EQ(c.verdict(),
            "WRONG expected 1234 got 1000; 384 of 16384 child launches failed (cudaErrorLaunchPendingCountExceeded)");

  c.got = 1234;
  c.record.failures = 0;
  c.record.first_error = 0;
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.verdict(), "WRONG 16000 child launches, expected 16384");
}
