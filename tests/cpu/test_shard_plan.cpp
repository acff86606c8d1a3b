// How n elements split into one shard per GPU.
#include <warpfold/distributed/shard_plan.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

using warpfold::distributed::shard_of;

TEST(ShardPlan, ShardsTileTheRangeInOrderAndDifferByAtMostOne) {
  for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(7), uint64_t(1000), (uint64_t(1) << 34) + 5}) {
    for (int parts : {1, 2, 3, 7, 8, 64}) {
      uint64_t next = 0, smallest = UINT64_MAX, largest = 0;
      for (int i = 0; i < parts; ++i) {
        const auto s = shard_of(n, parts, i);
        EXPECT_EQ(s.begin, next) << "n " << n << " parts " << parts << " shard " << i;
        next = s.begin + s.count;
        smallest = std::min(smallest, s.count);
        largest = std::max(largest, s.count);
      }
      EXPECT_EQ(next, n) << "n " << n << " parts " << parts;
      EXPECT_LE(largest - smallest, 1u) << "n " << n << " parts " << parts;
    }
  }
}

TEST(ShardPlan, LargerShardsComeFirst) {
  EXPECT_EQ(shard_of(10, 4, 0).count, 3u);
  EXPECT_EQ(shard_of(10, 4, 1).count, 3u);
  EXPECT_EQ(shard_of(10, 4, 2).count, 2u);
  EXPECT_EQ(shard_of(10, 4, 3).begin, 8u);
}

TEST(ShardPlan, FewerElementsThanGpusLeavesEmptyShards) {
  EXPECT_EQ(shard_of(2, 4, 1).count, 1u);
  EXPECT_EQ(shard_of(2, 4, 2).count, 0u);
  EXPECT_EQ(shard_of(2, 4, 3).begin, 2u);
}

TEST(ShardPlan, RejectsBadPartsAndIndices) {
  EXPECT_THROW(shard_of(10, 0, 0), std::invalid_argument);
  EXPECT_THROW(shard_of(10, -1, 0), std::invalid_argument);
  EXPECT_THROW(shard_of(10, 2, 2), std::invalid_argument);
  EXPECT_THROW(shard_of(10, 2, -1), std::invalid_argument);
}
