// The production reduce's split of an input into head, 16-byte vectors and tail, and its grid.
#include <warpfold/detail/reduce_plan.hpp>

#include <gtest/gtest.h>

#include <cstdint>

using namespace warpfold::detail;

TEST(ReducePlan, VectorWidthFollowsTheType) {
  EXPECT_EQ(vector_elements<int8_t>, 16u);
  EXPECT_EQ(vector_elements<int16_t>, 8u);
  EXPECT_EQ(vector_elements<float>, 4u);
  EXPECT_EQ(vector_elements<double>, 2u);
  struct three_bytes { char c[3]; };
  EXPECT_EQ(vector_elements<three_bytes>, 1u);  // does not tile 16 bytes: scalar loads
  struct big { char c[32]; };
  EXPECT_EQ(vector_elements<big>, 1u);
}

// Every element lands in exactly one of head, body and tail, for every alignment and size.
TEST(ReducePlan, HeadBodyTailCoverTheInputOnceAtEveryAlignment) {
  for (uint64_t n : {0ull, 1ull, 3ull, 4ull, 5ull, 15ull, 16ull, 17ull, 1000ull, (1ull << 20) + 7}) {
    for (uintptr_t offset = 0; offset < 16; offset += 4) {
      const uintptr_t address = 0x10000 + offset;
      const reduce_plan p = plan_reduce(n, address, 4, 4, 256, 1056);
      EXPECT_EQ(p.head + p.vectors * 4 + p.tail, n) << n << " @" << offset;
      EXPECT_LT(p.head, 4u);
      EXPECT_LT(p.tail, 4u);
      if (p.vectors > 0) EXPECT_EQ((address + p.head * 4) % 16, 0u) << "body must start 16-byte aligned";
    }
  }
}

TEST(ReducePlan, GridHasWorkForEveryBlockAndFillsTheDeviceOnce) {
  EXPECT_EQ(plan_reduce(0, 0, 4, 4, 256, 1056).grid, 1u);        // n = 0: one block writes init
  EXPECT_EQ(plan_reduce(3, 0, 4, 4, 256, 1056).grid, 1u);        // tail only
  EXPECT_EQ(plan_reduce(4096, 0, 4, 4, 256, 1056).grid, 1u);     // 1024 vectors: 4 per thread, one block
  EXPECT_EQ(plan_reduce(4100, 0, 4, 4, 256, 1056).grid, 2u);
  EXPECT_EQ(plan_reduce(1u << 20, 0, 4, 4, 256, 1056).grid, 256u);  // 2^18 vectors / (256 × 4)
  EXPECT_EQ(plan_reduce(1056ull * 4096, 0, 4, 4, 256, 1056).grid, 1056u);  // exactly one full wave
  // 2^26 vectors need 65536 block-batches: 63 rounds of 1041 blocks, not 62.06 rounds of 1056
  EXPECT_EQ(plan_reduce(1ull << 28, 0, 4, 4, 256, 1056).grid, 1041u);
  EXPECT_EQ(plan_reduce(1ull << 30, 0, 4, 4, 256, 1056).grid, 1053u);  // 262144 batches in 249 rounds
  EXPECT_EQ(plan_reduce(1ull << 33, 0, 1, 16, 256, 1056).grid, 1055u);  // beyond 2^32 elements: 497 rounds
}

// Past one wave the grid shrinks so that the last round of the grid-stride loop is nearly full:
// the slack is less than one block's share, and the grid never exceeds the resident capacity.
TEST(ReducePlan, LastRoundIsNearlyFullBeyondOneWave) {
  const uint64_t per_block = 256 * 4;
  for (uint64_t n : {(1ull << 24) + 12, (1ull << 26) - 4, 1ull << 28, 3ull << 27, (1ull << 31) + 68}) {
    const reduce_plan p = plan_reduce(n, 0, 4, 4, 256, 1056);
    ASSERT_LE(p.grid, 1056u) << n;
    const uint64_t batches = (p.vectors + per_block - 1) / per_block;
    const uint64_t rounds = (batches + p.grid - 1) / p.grid;
    const uint64_t covered = rounds * p.grid * per_block;
    EXPECT_GE(covered, p.vectors) << n;
    EXPECT_LT(covered - p.vectors, rounds * per_block) << n << ": more than one block's share left idle";
  }
}

TEST(ReducePlan, MisalignedStartHasAHead) {
  const reduce_plan p = plan_reduce(100, 0x1004, 4, 4, 256, 1056);  // 4 bytes past a boundary
  EXPECT_EQ(p.head, 3u);
  EXPECT_EQ(p.vectors, 24u);
  EXPECT_EQ(p.tail, 1u);
  const reduce_plan bytes = plan_reduce(100, 0x100f, 1, 16, 256, 1056);  // int8, 15 past
  EXPECT_EQ(bytes.head, 1u);
  EXPECT_EQ(bytes.vectors, 6u);
  EXPECT_EQ(bytes.tail, 3u);
}
