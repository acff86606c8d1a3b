#pragma once
// Empties L2 of the ladder's input before a timed run. The input is restored by a device copy
// before every run of the in-place kernels, which leaves up to an L2's worth of it cached; timed
// then, small inputs run at L2 speed while "% peak" compares with the DRAM read bandwidth. Writing
// a buffer twice the L2's size, as `bench --cold` does, evicts it.

#include "harness/device_buffer.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpfold::lab {

class L2Flush {
 public:
  L2Flush(size_t l2_bytes, cudaStream_t stream) : buffer_(bytes_needed(l2_bytes)), stream_(stream) {}

  static size_t bytes_needed(size_t l2_bytes) { return 2 * l2_bytes; }

  // Async on the stream, to be called outside the timed region.
  void operator()() const { WARPFOLD_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream_)); }

 private:
  harness::DeviceBuffer<char> buffer_;
  cudaStream_t stream_;
};

}  // namespace warpfold::lab
