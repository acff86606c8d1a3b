#pragma once
// Pieces both set-ups share: the checks before NCCL starts, the facts of the run, a stream that
// cleans up after itself.

#include "multigpu/multigpu_options.hpp"
#include "multigpu/multigpu_report.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace warpfold::multigpu {

// Device memory one GPU needs: its shard, plus room for NCCL's buffers and the reduce's temp storage.
size_t device_bytes_needed(const MultigpuOptions& options);

// What the memory check calls the request, e.g. "a shard of 2^28 int32 elements".
std::string describe_shard(const MultigpuOptions& options);

// NCCL_NVLS_ENABLE=0 unless set (nvlink_multicast.hpp); throws std::invalid_argument when the
// environment asks for NVLink multicast, which this command never uses. Returns what it found.
std::string require_nvlink_multicast_off();

// "2.28.9", from the NCCL library loaded.
std::string loaded_nccl_version();

// The line for a process without a CUDA device.
std::string no_device_line(const std::string& reason);

// A non-blocking stream on the current device.
class OwnedStream {
 public:
  OwnedStream();
  ~OwnedStream();
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace warpfold::multigpu
