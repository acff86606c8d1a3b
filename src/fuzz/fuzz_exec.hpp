#pragma once
// Runs fuzz cases on the GPU against CPU references.

#include "fuzz/fuzz_case.hpp"
#include "harness/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace warpfold::fuzz {

struct FuzzOutcome {
  bool ok = false;
  std::string detail;  // on failure: expected and got
};

// Device memory shared by the cases: an input buffer for max_n elements of the widest type (plus
// the offset), temp storage and an output slot, allocated once.
struct FuzzBuffers {
  harness::DeviceBuffer<char> input;
  harness::DeviceBuffer<char> temp;
  harness::DeviceBuffer<char> output;
  cudaStream_t stream;
};

class FuzzRunner {
 public:
  FuzzRunner(uint64_t max_n, cudaStream_t stream);
  FuzzOutcome run(const FuzzCase& c);

 private:
  FuzzBuffers buffers_;
};

// One translation unit each, to keep the instantiations of warpfold::reduce apart.
FuzzOutcome run_integer_case(const FuzzCase& c, FuzzBuffers& b);
FuzzOutcome run_floating_case(const FuzzCase& c, FuzzBuffers& b);
FuzzOutcome run_ladder_case(const FuzzCase& c, cudaStream_t stream);
FuzzOutcome run_segmented_case(const FuzzCase& c, FuzzBuffers& b);  // segmented and axis layouts

}  // namespace warpfold::fuzz
