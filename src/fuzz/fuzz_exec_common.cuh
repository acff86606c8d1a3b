#pragma once
// What the integer and floating-point fuzz units share: uploading a case's data at its offset,
// and running a two-phase warpfold call into the shared output slot.

#include "fuzz/fuzz_exec.hpp"

#include <warpfold/error.hpp>

#include <cstring>
#include <vector>

namespace warpfold::fuzz::detail {

// Copies `data` to the input buffer, `offset` elements past its (256-byte-aligned) start, and
// returns the device pointer to element 0.
template <class T>
const T* upload(const std::vector<T>& data, unsigned offset, FuzzBuffers& b) {
  T* d = reinterpret_cast<T*>(b.input.get()) + offset;
  if (!data.empty()) {
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(d, data.data(), data.size() * sizeof(T), cudaMemcpyHostToDevice, b.stream));
  }
  return d;
}

// Runs `call(temp, bytes, out)` (query, then run) and returns *out; the output slot is poisoned
// first, so a result that was never written cannot pass.
template <class Out, class Call>
Out run_call(FuzzBuffers& b, Call&& call) {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(call(nullptr, bytes, static_cast<Out*>(nullptr)));
  if (bytes > b.temp.bytes()) b.temp = harness::DeviceBuffer<char>(bytes);
  Out* out = reinterpret_cast<Out*>(b.output.get());
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(out, 0xa5, sizeof(Out), b.stream));
  WARPFOLD_CUDA_CHECK(call(b.temp.get(), bytes, out));
  Out result;
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&result, out, sizeof(Out), cudaMemcpyDeviceToHost, b.stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(b.stream));
  return result;
}

}  // namespace warpfold::fuzz::detail
