#pragma once
// The device limits a nested run depends on, raised before its first launch.
//
// CDP2 has no overflow pool for device-side launches: a launch that finds no free slot fails
// (the kernels record it, see NestedLaunchRecord). The slot count is a device-wide limit,
// cudaLimitDevRuntimePendingLaunchCount (2048 by default), best set before any kernel runs.
// The nesting depth needs no setting: cudaLimitDevRuntimeSyncDepth only concerned CDP1's
// device-side waits, and setting it on sm_90 fails with cudaErrorUnsupportedLimit; the nested
// chains are at most 10 grids deep, under the device runtime's limit of 24.

#include <cstddef>
#include <cstdint>

namespace warpfold::lab {

// Makes cudaLimitDevRuntimePendingLaunchCount at least `slots` (it is never lowered). Returns the
// limit in force. Throws warpfold::cuda_error with a sentence when the driver refuses (typically
// when the slots' device memory cannot be reserved).
size_t ensure_launch_slots(uint64_t slots);

// Makes the device printf buffer (cudaLimitPrintfFifoSize) at least `bytes`. Returns the limit in
// force. The driver accepts a change only before the process's first printf kernel; a refusal
// throws warpfold::cuda_error saying so.
size_t ensure_printf_buffer(size_t bytes);

}  // namespace warpfold::lab
