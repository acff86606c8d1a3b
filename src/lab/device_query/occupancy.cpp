#include "lab/device_query/occupancy.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <climits>

namespace warpfold::lab {

double theoretical_occupancy(int blocks_per_sm, int threads_per_block, const harness::DeviceLimits& limits) {
  const int max_warps = limits.max_warps_per_sm();
  if (max_warps <= 0 || limits.warp_size <= 0) return 0.0;
  const int warps_per_block = (threads_per_block + limits.warp_size - 1) / limits.warp_size;
  return double(blocks_per_sm) * warps_per_block / max_warps;
}

KernelResources kernel_resources(const void* function) {
  cudaFuncAttributes a{};
  WARPFOLD_CUDA_CHECK(cudaFuncGetAttributes(&a, function));
  return {a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock};
}

std::optional<Occupancy> occupancy_at(const void* function, int threads_per_block, const harness::DeviceLimits& limits) {
  if (threads_per_block > kernel_resources(function).max_threads_per_block) return std::nullopt;
  Occupancy o;
  WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, function, threads_per_block, 0));
  o.fraction = theoretical_occupancy(o.blocks_per_sm, threads_per_block, limits);
  return o;
}

const char* to_string(Resource r) {
  switch (r) {
    case Resource::registers: return "registers";
    case Resource::shared_memory: return "shared memory";
    case Resource::block_slots: return "block slots";
    case Resource::warps: return "warps";
  }
  return "?";
}

std::vector<Resource> limiting_resources(const BlockLimits& l) {
  const std::pair<Resource, int> all[] = {{Resource::registers, l.by_registers},
                                          {Resource::shared_memory, l.by_shared_memory},
                                          {Resource::block_slots, l.by_block_slots},
                                          {Resource::warps, l.by_warps}};
  int least = INT_MAX;
  for (const auto& [resource, blocks] : all) least = blocks < least ? blocks : least;
  std::vector<Resource> out;
  for (const auto& [resource, blocks] : all) {
    if (blocks == least) out.push_back(resource);
  }
  return out;
}

std::string limited_by_text(const BlockLimits& l) {
  std::string text;
  for (Resource r : limiting_resources(l)) text += (text.empty() ? "" : ", ") + std::string(to_string(r));
  return text;
}

std::optional<BlockLimits> block_limits(const cudaOccDeviceProp& device, const KernelResources& kernel,
                                        int threads_per_block) {
  cudaOccFuncAttributes attributes{};
  attributes.maxThreadsPerBlock = kernel.max_threads_per_block;
  attributes.numRegs = kernel.registers_per_thread;
  attributes.sharedSizeBytes = kernel.static_shared_bytes;
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
  const cudaOccDeviceState state;
  cudaOccResult result{};
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &attributes, &state, threads_per_block, 0) !=
      CUDA_OCC_SUCCESS) {
    return std::nullopt;
  }
  return BlockLimits{result.blockLimitRegs, result.blockLimitSharedMem, result.blockLimitBlocks,
                     result.blockLimitWarps};
}

cudaOccDeviceProp occupancy_device(int ordinal) {
  cudaDeviceProp p{};
  WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  return cudaOccDeviceProp(p);
}

std::string limited_by_ranges(const std::vector<std::pair<int, std::string>>& by_block_size) {
  std::string out;
  size_t i = 0;
  while (i < by_block_size.size()) {
    const auto& [first, text] = by_block_size[i];
    size_t j = i + 1;
    while (j < by_block_size.size() && by_block_size[j].second == text) ++j;
    if (!text.empty()) {
      const int last = by_block_size[j - 1].first;
      out += (out.empty() ? "" : "; ") + text + " @" + std::to_string(first) +
             (last != first ? "-" + std::to_string(last) : "");
    }
    i = j;
  }
  return out;
}

}  // namespace warpfold::lab
