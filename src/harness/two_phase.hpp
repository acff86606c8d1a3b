#pragma once
// Runs a two-phase warpfold call, `call(temp, bytes, out)` (CUB's convention: a null temp asks for
// the temp storage's size): ask, allocate, run, read the results back. The outputs are poisoned
// first, so a result the call never wrote cannot pass a check. Header-only, for the .cu files that
// instantiate warpfold's calls (the fuzzer's, the tests').

#include "harness/device_buffer.hpp"
#include "harness/sanitizer.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpfold::harness {

// Through `temp` (grown as the call needs and kept for the next; under initcheck, written when
// new: sanitizer.hpp) into out[0, count), poisoned first; waits for `stream` and returns the
// outputs. Throws warpfold::cuda_error for any failure.
template <class Out, class Call>
std::vector<Out> run_two_phase_into(Call&& call, DeviceBuffer<char>& temp, Out* out, uint64_t count,
                                    cudaStream_t stream) {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(call(nullptr, bytes, static_cast<Out*>(nullptr)));
  if (bytes > temp.bytes()) temp = fresh_temp_storage(bytes, stream);
  std::vector<Out> result(count);
  if (count > 0) WARPFOLD_CUDA_CHECK(cudaMemsetAsync(out, 0x5a, count * sizeof(Out), stream));
  WARPFOLD_CUDA_CHECK(call(temp.get(), bytes, out));
  if (count > 0) {
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(result.data(), out, count * sizeof(Out), cudaMemcpyDeviceToHost, stream));
  }
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

// One output, through `temp` and `out_slot`, each grown as the call needs and kept for the next.
template <class Out, class Call>
Out run_two_phase(Call&& call, DeviceBuffer<char>& temp, DeviceBuffer<char>& out_slot, cudaStream_t stream) {
  if (sizeof(Out) > out_slot.bytes()) out_slot = DeviceBuffer<char>(sizeof(Out));
  return run_two_phase_into(call, temp, reinterpret_cast<Out*>(out_slot.get()), 1, stream).front();
}

// The same with buffers allocated for this call alone.
template <class Out, class Call>
Out run_two_phase(Call&& call, cudaStream_t stream = 0) {
  DeviceBuffer<char> temp, out_slot;
  return run_two_phase<Out>(call, temp, out_slot, stream);
}

}  // namespace warpfold::harness
