#pragma once
// Theoretical occupancy: the share of an SM's warp slots that resident blocks of a kernel fill,
// as the CUDA occupancy calculator (cudaOccupancyMaxActiveBlocksPerMultiprocessor) works it out
// from the kernel's registers and shared memory.

#include "harness/device_limits.hpp"

#include <cuda_occupancy.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpfold::lab {

// Active warps / maximum warps per SM, for `blocks_per_sm` resident blocks of `threads_per_block`
// (a partial warp still takes a whole warp slot). 0 when the SM limits are unknown.
double theoretical_occupancy(int blocks_per_sm, int threads_per_block, const harness::DeviceLimits& limits);

struct KernelResources {
  int registers_per_thread = 0;
  size_t static_shared_bytes = 0;
  size_t local_bytes_per_thread = 0;  // spills and stack
  int max_threads_per_block = 0;      // for this kernel: registers may lower it below the device's
};

// From cudaFuncGetAttributes.
KernelResources kernel_resources(const void* function);

struct Occupancy {
  int blocks_per_sm = 0;
  double fraction = 0;  // theoretical_occupancy of those blocks
};

// For one block size with no dynamic shared memory; nullopt when the kernel cannot be launched
// with that many threads.
std::optional<Occupancy> occupancy_at(const void* function, int threads_per_block, const harness::DeviceLimits& limits);

// The SM resources that bound how many blocks of a kernel are resident at once.
enum class Resource { registers, shared_memory, block_slots, warps };
const char* to_string(Resource resource);

// How many blocks each resource alone lets an SM hold (INT_MAX: the kernel does not use it).
struct BlockLimits {
  int by_registers = 0;
  int by_shared_memory = 0;
  int by_block_slots = 0;
  int by_warps = 0;
};

// The resources whose limit is the smallest, ties included, in the enum's order.
std::vector<Resource> limiting_resources(const BlockLimits& limits);

// Those resources as a reader sees them: "registers", "warps, block slots".
std::string limited_by_text(const BlockLimits& limits);

// Each resource's limit, as the CUDA occupancy calculator (cuda_occupancy.h) works it out on the
// host from a device description and a kernel's resources, with no dynamic shared memory; nullopt
// where the calculator rejects the input (an unknown architecture, say). No GPU is needed.
std::optional<BlockLimits> block_limits(const cudaOccDeviceProp& device, const KernelResources& kernel,
                                        int threads_per_block);

// Device `ordinal` described for the calculator (cudaGetDeviceProperties).
cudaOccDeviceProp occupancy_device(int ordinal = 0);

// A kernel's limiting resource across block sizes, runs of equal ones joined:
// {{32, "block slots"}, {64, "warps"}, {128, "warps"}} gives "block slots @32; warps @64-128".
// Entries with an empty text (a size the kernel cannot launch with) end a run and are left out.
std::string limited_by_ranges(const std::vector<std::pair<int, std::string>>& by_block_size);

}  // namespace warpfold::lab
