#pragma once
// The device buffers of `warpfold registers` and the check every variant's launch goes through:
// the input drawn from a seed, its CPU reference, and the output preset to the complement of the
// reference, so that a thread that writes nothing cannot pass.

#include "harness/device_buffer.hpp"
#include "lab/registers/register_kernels.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::lab {

class RegisterWorkspace {
 public:
  RegisterWorkspace(uint64_t n, uint64_t seed, cudaStream_t stream);

  // Device bytes for n threads: inputs and outputs.
  static uint64_t bytes_needed(uint64_t n);

  // One launch of the variant, then its output against the CPU: "ok" or "WRONG ...".
  std::string run_and_check(const registers::RegisterVariant& variant);
  void launch(const registers::RegisterVariant& variant);

 private:
  uint64_t n_;
  cudaStream_t stream_;
  std::vector<uint32_t> expected_;
  std::vector<uint32_t> preset_;  // ~expected_
  harness::DeviceBuffer<uint32_t> in_, out_;
};

}  // namespace warpfold::lab
