// The production reduce's split of an input into head, 16-byte vectors and tail, and its grid.
#include <warpfold/detail/reduce_plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
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
  // Aligned below its size: from 4 bytes past a 16-byte boundary no whole number of elements
  // reaches the next one, so such types are read one at a time.
  struct float_pair { float x, y; };
  static_assert(alignof(float_pair) == 4 && sizeof(float_pair) == 8);
  EXPECT_EQ(vector_elements<float_pair>, 1u);
  struct alignas(8) aligned_pair { float x, y; };
  EXPECT_EQ(vector_elements<aligned_pair>, 2u);
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
  EXPECT_EQ(plan_reduce(4096, 0, 4, 4, 256, 1056).grid, 1u);     // one tile: 1024 vectors
  EXPECT_EQ(plan_reduce(8192, 0, 4, 4, 256, 1056).grid, 1u);     // two tiles: still one block
  EXPECT_EQ(plan_reduce(8196, 0, 4, 4, 256, 1056).grid, 3u);     // three tiles (the last 1 vector)
  EXPECT_EQ(plan_reduce(4096, 0, 8, 2, 256, 1056).grid, 1u);     // doubles: 32 KiB in one block
  EXPECT_EQ(plan_reduce(1u << 20, 0, 4, 4, 256, 1056).grid, 256u);  // 2^18 vectors / (256 × 4)
  EXPECT_EQ(plan_reduce(1056ull * 4096, 0, 4, 4, 256, 1056).grid, 1056u);  // exactly one full wave
  // Beyond one wave the grid stays at the capacity, however thin the last round.
  EXPECT_EQ(plan_reduce(1056ull * 4096 + 4, 0, 4, 4, 256, 1056).grid, 1056u);
  EXPECT_EQ(plan_reduce(1ull << 28, 0, 4, 4, 256, 1056).grid, 1056u);
  EXPECT_EQ(plan_reduce(1ull << 33, 0, 1, 16, 256, 1056).grid, 1056u);  // beyond 2^32 elements
  EXPECT_EQ(plan_reduce(1ull << 28, 0, 4, 4, 256, 7).grid, 7u);         // a small device
}

// A reduce that polls its partials (up to 256 blocks) takes 256 blocks of two tiles rather than
// 257 to 512 blocks of one; beyond 512 tiles, and for reduces that do not poll, nothing changes.
TEST(ReducePlan, GridsJustPastTheShapedLimitTakeTwoTilesPerBlock) {
  const uint64_t tile = 4096;  // int32 elements per tile
  EXPECT_EQ(plan_reduce(256 * tile, 0, 4, 4, 256, 1056, 256).grid, 256u);
  EXPECT_EQ(plan_reduce(256 * tile + 4, 0, 4, 4, 256, 1056, 256).grid, 256u);
  EXPECT_EQ(plan_reduce(512 * tile, 0, 4, 4, 256, 1056, 256).grid, 256u);
  EXPECT_EQ(plan_reduce(512 * tile + 4, 0, 4, 4, 256, 1056, 256).grid, 513u);
  EXPECT_EQ(plan_reduce(300 * tile, 0, 4, 4, 256, 1056, 0).grid, 300u);  // not shaped
  EXPECT_EQ(plan_reduce(300 * tile, 0, 4, 4, 256, 200, 256).grid, 200u);  // capacity below the limit
  EXPECT_EQ(plan_reduce(100 * tile, 0, 4, 4, 256, 1056, 256).grid, 100u);
}

// Every block's first tile exists (block b starts at tile b), so every launched block holds a
// value. (That every tile is some block's follows from the kernel's stride: block b takes tiles
// b, b + grid, ...)
TEST(ReducePlan, EveryLaunchedBlockHasATile) {
  const uint64_t tile_vectors = 256 * 4;
  for (uint64_t n : {1ull, 4097ull, 9000ull, (1ull << 24) + 12, (1ull << 26) - 4, 3ull << 27, (1ull << 31) + 68}) {
    for (unsigned polled : {0u, 256u}) {
      const reduce_plan p = plan_reduce(n, 0, 4, 4, 256, 1056, polled);
      ASSERT_GE(p.grid, 1u);
      ASSERT_LE(p.grid, 1056u) << n;
      const uint64_t tiles = (p.vectors + tile_vectors - 1) / tile_vectors;
      if (p.grid > 1) EXPECT_LT((p.grid - 1) * tile_vectors, p.vectors) << n << ": the last block has no tile";
      EXPECT_LE(p.grid, std::max<uint64_t>(tiles, 1)) << n;
    }
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

// The wide kernel's tiles are twice as long (8 vectors per thread): the same rules, in 32 KiB.
TEST(ReducePlan, WideTilesHalveTheGrid) {
  const unsigned wide = kHopperPolicy.wide_vectors;
  EXPECT_EQ(plan_reduce(16384, 0, 4, 4, 256, 396, 256, wide).grid, 1u);   // two wide tiles: one block
  EXPECT_EQ(plan_reduce(16388, 0, 4, 4, 256, 396, 256, wide).grid, 3u);
  EXPECT_EQ(plan_reduce(1u << 20, 0, 4, 4, 256, 1056, 256, wide).grid, 128u);  // 2^18 vectors / (256 × 8)
  EXPECT_EQ(plan_reduce(1ull << 28, 0, 4, 4, 256, 396, 0, wide).grid, 396u);
  const reduce_plan p = plan_reduce((1ull << 22) + 3, 0x1008, 4, 4, 256, 396, 0, wide);
  EXPECT_EQ(p.head + p.vectors * 4 + p.tail, (1ull << 22) + 3);
  EXPECT_LT(uint64_t(p.grid - 1) * 256 * wide, p.vectors) << "the last block has no tile";
}

// Which reduces have the wide kernel, and from which size the dispatch takes it.
TEST(ReducePlan, WideKernelIsForLargeInputsOfFourAndEightByteTypes) {
  EXPECT_TRUE((has_wide_tiles<int32_t, int32_t>));
  EXPECT_TRUE((has_wide_tiles<float, double>));
  EXPECT_TRUE((has_wide_tiles<double, double>));
  EXPECT_FALSE((has_wide_tiles<int8_t, int64_t>));   // 16 elements per vector
  EXPECT_FALSE((has_wide_tiles<int16_t, int32_t>));
  struct sixteen { double a, b; };
  EXPECT_FALSE((has_wide_tiles<double, sixteen>));   // accumulator wider than 8 bytes
  EXPECT_FALSE((has_wide_tiles<sixteen, double>));   // no vector path
  const uint64_t edge = kHopperPolicy.wide_above_bytes / 4;
  EXPECT_FALSE((takes_wide_tiles<float, float>(edge)));
  EXPECT_TRUE((takes_wide_tiles<float, float>(edge + 1)));
  EXPECT_FALSE((takes_wide_tiles<double, double>(edge / 2)));
  EXPECT_TRUE((takes_wide_tiles<double, double>(edge / 2 + 1)));
  EXPECT_FALSE((takes_wide_tiles<int8_t, int64_t>(1ull << 32)));
  // and from one narrow tile (16 KiB) to one block of wide tiles (64 KiB)
  EXPECT_EQ(narrow_tile_bytes(kHopperPolicy), 16u << 10);
  EXPECT_EQ(wide_single_block_bytes(kHopperPolicy), 64u << 10);
  EXPECT_FALSE((takes_wide_tiles<float, float>(4096)));
  EXPECT_TRUE((takes_wide_tiles<float, float>(4097)));
  EXPECT_TRUE((takes_wide_tiles<float, float>(16384)));
  EXPECT_FALSE((takes_wide_tiles<float, float>(16385)));
  EXPECT_TRUE((takes_wide_tiles<double, float>(8192)));
  EXPECT_FALSE((takes_wide_tiles<int8_t, int64_t>(8192)));
  // There, one block: two wide tiles at most
  EXPECT_EQ(plan_reduce(16384, 0x1000, 4, 4, 256, 396, 256, kHopperPolicy.wide_vectors).grid, 1u);
  EXPECT_EQ(plan_reduce(16384, 0x1004, 4, 4, 256, 396, 256, kHopperPolicy.wide_vectors).grid, 1u);
}

// The bulk kernel: the wide kernel's reduces above 256 MiB, three of its 32 KiB tiles in shared
// memory per block, so two blocks per SM (of 228 KiB on compute capability 9.0).
TEST(ReducePlan, BulkKernelIsForTheWideKernelsReducesAbove256MiB) {
  EXPECT_EQ(kHopperPolicy.bulk_above_bytes, 256ull << 20);
  EXPECT_EQ(kHopperPolicy.tile_bytes(kernel_kind::bulk), 32u << 10);
  EXPECT_EQ(kHopperPolicy.bulk_shared_bytes(), 96u << 10);
  EXPECT_LE(kHopperPolicy.bulk_min_blocks * (kHopperPolicy.bulk_shared_bytes() + 1024), 228u << 10);
  const uint64_t edge = kHopperPolicy.bulk_above_bytes / 4;
  EXPECT_FALSE((takes_bulk_tiles<float, float>(edge)));
  EXPECT_TRUE((takes_bulk_tiles<float, float>(edge + 1)));
  EXPECT_TRUE((takes_bulk_tiles<int32_t, int64_t>(edge + 1)));
  EXPECT_FALSE((takes_bulk_tiles<double, double>(edge / 2)));
  EXPECT_TRUE((takes_bulk_tiles<double, double>(edge / 2 + 1)));
  EXPECT_TRUE((takes_bulk_tiles<double, double>(1ull << 33)));
  EXPECT_FALSE((takes_bulk_tiles<int8_t, int64_t>(1ull << 34)));  // no wide kernel: the narrow one
  EXPECT_FALSE((takes_bulk_tiles<int16_t, int32_t>(1ull << 33)));
  // Its grid: the wide tiles over its own resident capacity (2 blocks per SM on 132 SMs).
  const reduce_plan p = plan_reduce((1ull << 26) + 5, 0x1004, 4, 4, 256, 264, 256, kHopperPolicy.wide_vectors);
  EXPECT_EQ(p.grid, 264u);
  EXPECT_EQ(p.head + p.vectors * 4 + p.tail, (1ull << 26) + 5);
}

// Pointer and count errors are found on the host, before any device is asked: null pointers
// first, then each pointer's alignment (the input's and output's types', 8 bytes for temp).
TEST(ReduceArguments, NullAndMisalignedPointersAreFoundOnTheHost) {
  alignas(16) static char memory[64];
  const void* temp = memory;
  const void* in = memory + 16;
  const void* out = memory + 32;
  EXPECT_EQ(check_reduce_arguments(temp, in, 4, out, 8, 10), argument_problem::none);
  EXPECT_EQ(check_reduce_arguments(temp, nullptr, 4, out, 8, 0), argument_problem::none);  // n = 0: no input needed
  EXPECT_EQ(check_reduce_arguments(temp, nullptr, 4, out, 8, 1), argument_problem::null_pointer);
  EXPECT_EQ(check_reduce_arguments(temp, in, 4, nullptr, 8, 10), argument_problem::null_pointer);
  EXPECT_EQ(check_reduce_arguments(nullptr, in, 4, out, 8, 10), argument_problem::null_pointer);
  EXPECT_EQ(check_reduce_arguments(temp, memory + 18, 4, out, 8, 10), argument_problem::misaligned);
  EXPECT_EQ(check_reduce_arguments(temp, memory + 18, 2, out, 8, 10), argument_problem::none);
  EXPECT_EQ(check_reduce_arguments(temp, in, 4, memory + 36, 8, 10), argument_problem::misaligned);
  EXPECT_EQ(check_reduce_arguments(temp, in, 4, memory + 36, 4, 10), argument_problem::none);
  EXPECT_EQ(check_reduce_arguments(memory + 4, in, 4, out, 8, 10), argument_problem::misaligned);
}

// The policy of each architecture family: which code gets which, and budgets that each family's
// SMs can hold (threads and registers per SM, shared memory for the bulk stages).
TEST(ReducePolicy, EachArchitectureGetsAPolicyItsSmsCanHold) {
  EXPECT_EQ(policy_for_arch(750).arch, 750u);
  EXPECT_EQ(policy_for_arch(800).arch, 800u);
  EXPECT_EQ(policy_for_arch(860).arch, 800u);
  EXPECT_EQ(policy_for_arch(890).arch, 800u);
  EXPECT_EQ(policy_for_arch(900).arch, 900u);
  EXPECT_EQ(policy_for_arch(1000).arch, 900u);  // newer devices: Hopper's, until measured
  struct sm_limits { unsigned arch, threads, registers, shared_bytes; };
  // The smallest SM of each family: 7.5 (1024 threads), 8.6/8.9 (1536), 9.0 (2048, 228 KiB).
  for (const sm_limits sm : {sm_limits{750, 1024, 65536, 64u << 10}, sm_limits{860, 1536, 65536, 100u << 10},
                             sm_limits{900, 2048, 65536, 228u << 10}}) {
    const reduce_policy p = policy_for_arch(sm.arch);
    for (kernel_kind k : {kernel_kind::narrow, kernel_kind::wide}) {
      EXPECT_LE(p.min_blocks(k) * p.threads, sm.threads) << sm.arch;
      EXPECT_GE(sm.registers / (p.min_blocks(k) * p.threads), 32u) << sm.arch;
    }
    if (p.bulk_stages > 0) {
      EXPECT_GE(sm.arch, 900u);
      EXPECT_LE(p.bulk_min_blocks * (p.bulk_shared_bytes() + 1024), sm.shared_bytes);
    }
  }
  EXPECT_EQ(kTuringPolicy.bulk_stages, 0u);
  EXPECT_EQ(kAmperePolicy.bulk_stages, 0u);
  EXPECT_TRUE(same_kernel_shapes(kTuringPolicy, kHopperPolicy));
  // The register budget per kernel kind, per architecture (0: ptxas's own count).
  EXPECT_EQ((min_blocks_per_sm<float, float>(kernel_kind::narrow, 750)), 4u);
  EXPECT_EQ((min_blocks_per_sm<float, float>(kernel_kind::narrow, 900)), 5u);
  EXPECT_EQ((min_blocks_per_sm<double, double>(kernel_kind::wide, 800)), 3u);
  EXPECT_EQ((min_blocks_per_sm<int8_t, int64_t>(kernel_kind::narrow, 900)), 0u);
}

// Accumulators wider than 8 bytes read through every loader the element type has; only the
// dispatch's own choice keeps them on the narrow kernel.
TEST(ReducePolicy, WideAccumulatorsMayNameEveryLoader) {
  struct sixteen { double a, b; };
  EXPECT_TRUE(has_wide_loads<float>);
  EXPECT_TRUE(has_wide_loads<double>);
  EXPECT_FALSE(has_wide_loads<sixteen>);
  EXPECT_FALSE((has_wide_tiles<float, sixteen>));
  EXPECT_FALSE((takes_wide_tiles<float, sixteen>(1ull << 30)));
}
