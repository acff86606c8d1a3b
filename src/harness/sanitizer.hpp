#pragma once
// Runs under compute-sanitizer: which tool (WARPFOLD_SANITIZE, set by scripts/sanitize.sh), and
// the one thing initcheck needs of temp storage. Header-only, for the tests and the tools that
// allocate warpfold's temp storage (the fuzzer's, the multi-GPU run's).
//
// warpfold takes temp storage as it comes (reduce.cuh): the grid's combine polls words that no
// call may have written yet and tells a stale word by its tag. initcheck reports each such read
// of never-written device memory, though no result depends on it, so under initcheck fresh temp
// storage is written once (with bytes of no call) before its first use.

#include "harness/device_buffer.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace warpfold::harness {

// WARPFOLD_SANITIZE: empty, or the name of a compute-sanitizer tool. Anything else is refused: a
// misspelt name would quietly run as if under no tool.
inline const std::string& sanitizer_tool() {
  static const std::string tool = [] {
    const char* v = std::getenv("WARPFOLD_SANITIZE");
    const std::string name(v == nullptr ? "" : v);
    for (const char* known : {"", "memcheck", "racecheck", "synccheck", "initcheck"}) {
      if (name == known) return name;
    }
    throw std::invalid_argument("WARPFOLD_SANITIZE='" + name +
                                "' is not a compute-sanitizer tool (memcheck, racecheck, synccheck, initcheck)");
  }();
  return tool;
}

// Under initcheck (see above), writes `bytes` of fresh temp storage at `temp` on `stream` and waits
// for it, so that a call on any stream finds it written; nothing otherwise, so that other runs
// meet temp storage as cudaMalloc hands it over.
inline cudaError_t prepare_fresh_temp(void* temp, size_t bytes, cudaStream_t stream = 0) {
  if (sanitizer_tool() != "initcheck" || temp == nullptr || bytes == 0) return cudaSuccess;
  if (cudaError_t rc = cudaMemsetAsync(temp, 0x5a, bytes, stream); rc != cudaSuccess) return rc;
  return cudaStreamSynchronize(stream);
}

// `bytes` of new temp storage for warpfold's calls on `stream` (prepared as above).
inline DeviceBuffer<char> fresh_temp_storage(size_t bytes, cudaStream_t stream = 0) {
  DeviceBuffer<char> temp(bytes);
  WARPFOLD_CUDA_CHECK(prepare_fresh_temp(temp.get(), temp.bytes(), stream));
  return temp;
}

}  // namespace warpfold::harness
