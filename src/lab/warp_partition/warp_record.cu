#include "lab/warp_partition/warp_record.hpp"

#include "harness/device_buffer.hpp"

#include <warpfold/error.hpp>

namespace warpfold::lab {
namespace {

// The lowest active lane draws a ticket for its warp and hands it to the others: threads that
// share a ticket ran as one warp, whatever the rule says.
__global__ void recordWarps(LaneRecord* records, unsigned* tickets) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned mask = __activemask();
  const int leader = __ffs(mask) - 1;
  unsigned ticket = 0;
  if (int(lane) == leader) ticket = atomicAdd(tickets, 1u);
  ticket = __shfl_sync(mask, ticket, leader);
  const unsigned slot = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  records[slot] = {blockIdx.x, threadIdx.x, threadIdx.y, lane, ticket, mask};
}

}  // namespace

std::vector<LaneRecord> record_warps(BlockShape block, unsigned blocks, cudaStream_t stream) {
  const size_t count = size_t(block.threads()) * blocks;
  harness::DeviceBuffer<LaneRecord> records(count);
  harness::DeviceBuffer<unsigned> tickets(1);
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(records.get(), 0xff, records.bytes(), stream));
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(tickets.get(), 0, tickets.bytes(), stream));
  recordWarps<<<blocks, dim3(block.x, block.y), 0, stream>>>(records.get(), tickets.get());
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  std::vector<LaneRecord> host(count);
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), records.get(), records.bytes(), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace warpfold::lab
