#pragma once
// `warpfold registers`: resource-limited occupancy. One computation, its values held in registers
// or in shared memory, compiled under several register limits (register_kernels.hpp); for each:
// registers per thread, spills, theoretical occupancy and what limits it, the check against the
// CPU and the time. `warpfold profile registers` adds the achieved occupancy.

#include "harness/run_outcome.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::lab {

struct RegistersOptions {
  uint64_t n = uint64_t(1) << 21;  // threads, one output each, from 48 inputs each
  int reps = 20;
  int warmup = 2;
  std::optional<uint64_t> seed;  // fresh when not given
};

// The most threads: their inputs (48 per thread) stay within 3 GiB.
inline constexpr uint64_t kMaxRegisterThreads = uint64_t(1) << 24;

// Throws std::invalid_argument naming the problem (n outside 1..2^24, reps < 1).
void validate_registers_options(const RegistersOptions& options);

// What every kernel computes, on the CPU: out[t] from in[j * n + t], j < 48. Written apart from the
// kernels' code, so that it checks them rather than repeating them.
std::vector<uint32_t> registers_reference(const std::vector<uint32_t>& in, uint64_t n);

// "ok", or "WRONG at thread t: expected e got g (k of n outputs)".
std::string compare_outputs(const std::vector<uint32_t>& expected, const std::vector<uint32_t>& got);

harness::RunOutcome run_registers(const RegistersOptions& options);

}  // namespace warpfold::lab
