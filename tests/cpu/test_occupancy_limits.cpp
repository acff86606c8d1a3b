// What limits occupancy: the CUDA occupancy calculator's per-resource block limits for a
// described H100, the resource named for each, and the runs `warpfold info` prints. No GPU.
#include "lab/device_query/occupancy.hpp"

#include <gtest/gtest.h>

#include <climits>

using namespace warpfold;
using lab::Resource;

namespace {

// An H100 SXM as cudaGetDeviceProperties describes it.
cudaOccDeviceProp h100() {
  cudaOccDeviceProp d;
  d.computeMajor = 9;
  d.computeMinor = 0;
  d.maxThreadsPerBlock = 1024;
  d.maxThreadsPerMultiprocessor = 2048;
  d.regsPerBlock = 65536;
  d.regsPerMultiprocessor = 65536;
  d.warpSize = 32;
  d.sharedMemPerBlock = 48 * 1024;
  d.sharedMemPerMultiprocessor = 228 * 1024;
  d.numSms = 132;
  d.sharedMemPerBlockOptin = 227 * 1024;
  d.reservedSharedMemPerBlock = 1024;
  return d;
}

lab::KernelResources kernel(int registers, size_t shared_bytes = 0) {
  return {registers, shared_bytes, 0, 1024};
}

std::string limited_by(const lab::KernelResources& k, int threads) {
  const auto limits = lab::block_limits(h100(), k, threads);
  EXPECT_TRUE(limits.has_value());
  return limits ? lab::limited_by_text(*limits) : "";
}

}  // namespace

TEST(OccupancyLimits, TheSmallestLimitNamesTheResourceTiesIncluded) {
  EXPECT_EQ(lab::limiting_resources({3, INT_MAX, 32, 8}), std::vector<Resource>{Resource::registers});
  EXPECT_EQ(lab::limiting_resources({8, INT_MAX, 32, 8}), (std::vector<Resource>{Resource::registers, Resource::warps}));
  EXPECT_EQ(lab::limiting_resources({INT_MAX, 4, 32, 8}), std::vector<Resource>{Resource::shared_memory});
  EXPECT_EQ(lab::limited_by_text({64, INT_MAX, 32, 64}), "block slots");
  EXPECT_EQ(lab::limited_by_text({8, INT_MAX, 32, 8}), "registers, warps");
}

TEST(OccupancyLimits, RegisterHeavyKernelIsLimitedByRegisters) {
  // 80 registers: 2560 per warp, 6 warps per quarter of the register file, 24 warps: 3 blocks of 8.
  const auto limits = lab::block_limits(h100(), kernel(80), 256);
  ASSERT_TRUE(limits.has_value());
  EXPECT_EQ(limits->by_registers, 3);
  EXPECT_EQ(limits->by_warps, 8);
  EXPECT_EQ(limits->by_block_slots, 32);
  EXPECT_EQ(lab::limited_by_text(*limits), "registers");
  // Capped at 64: 4 blocks; at 32: 8, where the warps limit too.
  EXPECT_EQ(lab::block_limits(h100(), kernel(64), 256)->by_registers, 4);
  EXPECT_EQ(limited_by(kernel(32), 256), "registers, warps");
}

TEST(OccupancyLimits, SharedMemoryBlockSlotsAndWarpsEachLimitSomewhere) {
  // 48 KiB of static shared memory, plus the 1 KiB the driver reserves per block: 4 blocks in 228 KiB.
  const auto shared = lab::block_limits(h100(), kernel(32, 48 * 1024), 256);
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->by_shared_memory, 4);
  EXPECT_EQ(lab::limited_by_text(*shared), "shared memory");
  // One-warp blocks: 32 block slots fill half of the 64 warp slots.
  EXPECT_EQ(limited_by(kernel(16), 32), "block slots");
  // 1024-thread blocks of a light kernel: two fill the 64 warp slots.
  EXPECT_EQ(limited_by(kernel(16), 1024), "warps");
}

TEST(OccupancyLimits, AnUnknownArchitectureIsNoAnswer) {
  cudaOccDeviceProp d = h100();
  d.computeMajor = 1;
  EXPECT_FALSE(lab::block_limits(d, kernel(32), 256).has_value());
}

TEST(OccupancyLimits, RunsOfOneResourceAreJoined) {
  EXPECT_EQ(lab::limited_by_ranges({{32, "block slots"}, {64, "warps"}, {128, "warps"}, {1024, "warps"}}),
            "block slots @32; warps @64-1024");
  EXPECT_EQ(lab::limited_by_ranges({{32, "registers"}, {64, "registers"}, {128, ""}}), "registers @32-64");
  EXPECT_EQ(lab::limited_by_ranges({{256, "warps"}, {512, ""}, {1024, "warps"}}), "warps @256; warps @1024");
  EXPECT_EQ(lab::limited_by_ranges({}), "");
}
