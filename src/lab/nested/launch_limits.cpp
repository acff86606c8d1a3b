#include "lab/nested/launch_limits.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace warpfold::lab {
namespace {

// Raises `limit` to `wanted` when it is lower; `what` and `hint` make the error a sentence.
size_t ensure_limit(cudaLimit limit, size_t wanted, const char* what, const char* hint) {
  size_t current = 0;
  WARPFOLD_CUDA_CHECK(cudaDeviceGetLimit(&current, limit));
  if (current >= wanted) return current;
  const cudaError_t rc = cudaDeviceSetLimit(limit, wanted);
  if (rc != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so that later checks see their own errors
    throw cuda_error(rc, std::string("cannot raise ") + what + " from " + std::to_string(current) + " to " +
                             std::to_string(wanted) + ": " + cudaGetErrorName(rc) + " (" + cudaGetErrorString(rc) +
                             "); " + hint);
  }
  WARPFOLD_CUDA_CHECK(cudaDeviceGetLimit(&current, limit));  // the driver may round the value up
  return current;
}

}  // namespace

size_t ensure_launch_slots(uint64_t slots) {
  return ensure_limit(cudaLimitDevRuntimePendingLaunchCount, static_cast<size_t>(slots),
                      "the device-runtime launch slots (cudaLimitDevRuntimePendingLaunchCount)",
                      "use a larger --block or a smaller --n");
}

size_t ensure_printf_buffer(size_t bytes) {
  return ensure_limit(cudaLimitPrintfFifoSize, bytes, "the device printf buffer (cudaLimitPrintfFifoSize)",
                      "it can only grow before the first kernel that prints; use a smaller --grid or --block");
}

}  // namespace warpfold::lab
