#pragma once
// Device buffers for running the nested reductions on one input.
//
// The kernels reduce in place, so a pristine copy is kept and copied back (untimed) before every
// run. Both copies are padded with zeros (the identity of the sum) up to grid × block: the kernels
// halve whole blocks. The launch record counts the device-side launches of the runs since its
// last reset.

#include "harness/device_buffer.hpp"
#include "lab/nested/nested_plan.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace warpfold::lab {

class NestedWorkspace {
 public:
  NestedWorkspace(const std::vector<int>& input, int64_t exact_sum, unsigned block, cudaStream_t stream);

  // Device bytes a workspace for n elements and this block needs (for a clear error before allocating).
  static size_t bytes_needed(uint64_t n, unsigned block);

  const NestedShape& shape() const { return shape_; }
  void restore() const;                       // async on the stream, untimed
  void reset_record() const;                  // async: zero the launch record
  void launch(NestedVariant variant) const;   // async: the top grid; host-side launch errors throw
  // Poison the partial sums, restore, reset the record, launch, wait, and check.
  NestedCheck run_and_check(NestedVariant variant) const;
  // Waits, then checks the last run's sum and the launches of the `runs` runs since reset_record().
  NestedCheck check_runs(NestedVariant variant, uint64_t runs) const;

 private:
  NestedShape shape_;
  int64_t expected_;
  cudaStream_t stream_;
  harness::DeviceBuffer<int> pristine_;
  harness::DeviceBuffer<int> work_;
  harness::DeviceBuffer<int> partials_;
  harness::DeviceBuffer<NestedLaunchRecord> record_;
};

}  // namespace warpfold::lab
