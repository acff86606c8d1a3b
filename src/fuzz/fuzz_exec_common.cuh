#pragma once
// What the integer and floating-point fuzz units share: uploading a case's data at its offset,
// running a two-phase warpfold call into the shared output slot, and the arg_min / arg_max check.

#include "fuzz/fuzz_exec.hpp"
#include "harness/two_phase.hpp"

#include <warpfold/error.hpp>
#include <warpfold/reduce.cuh>

#include <cstdint>
#include <cstring>
#include <string>
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

// Runs `call(temp, bytes, out)` through the shared buffers and returns *out.
template <class Out, class Call>
Out run_call(FuzzBuffers& b, Call&& call) {
  return harness::run_two_phase<Out>(call, b.temp, b.output, b.stream);
}

// Runs `call(temp, bytes, out)` and returns its `count` outputs (harness::run_two_phase_into).
// They go to the shared output slot where they fit, else to a buffer of their own, so that the
// slot does not keep the largest case's size.
template <class Out, class Call>
std::vector<Out> run_outputs(FuzzBuffers& b, uint64_t count, Call&& call) {
  const size_t out_bytes = count * sizeof(Out);
  harness::DeviceBuffer<char> own(out_bytes > b.output.bytes() ? out_bytes : 0);
  Out* out = reinterpret_cast<Out*>(own.get() ? own.get() : b.output.get());
  return harness::run_two_phase_into(call, b.temp, out, count, b.stream);
}

// The index of the first element that no later one orders before by `before(a, b)` ("a is more
// extreme than b", the ordering of ops.cuh); 0 for no elements. The reference of min, max,
// arg_min and arg_max.
template <class T, class Before>
uint64_t first_extreme_index(const std::vector<T>& data, Before before) {
  uint64_t index = 0;
  for (uint64_t i = 1; i < data.size(); ++i) {
    if (before(data[i], data[index])) index = i;
  }
  return index;
}

// An arg_min (is_min) or arg_max case over `data`, uploaded at `d`, against first_extreme_index.
template <class T, class Before>
FuzzOutcome check_arg_index(FuzzBuffers& b, const T* d, const std::vector<T>& data, bool is_min, Before before) {
  const uint64_t n = data.size();
  const uint64_t expected = first_extreme_index(data, before);
  const auto got = run_call<key_value<T>>(b, [&](void* t, size_t& s, key_value<T>* o) {
    return is_min ? argmin(t, s, d, o, n, b.stream) : argmax(t, s, d, o, n, b.stream);
  });
  if (got.index == expected) return {true, ""};
  return {false, "expected index " + std::to_string(expected) + " got " + std::to_string(got.index)};
}

}  // namespace warpfold::fuzz::detail
