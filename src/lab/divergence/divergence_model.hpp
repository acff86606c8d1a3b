#pragma once
// The CPU's model of the divergence kernels: which branch each thread takes, which warps split
// between both branches, and the check of a kernel's output against that model. No CUDA here.

#include <cstdint>
#include <string>

namespace warpfold::lab::divergence {

// The values the kernels write: 100 on the `if` branch, 200 on the `else` branch.
inline constexpr float kIfValue = 100.0f;
inline constexpr float kElseValue = 200.0f;

// True when global thread `tid` takes the `if` branch.
using BranchRule = bool (*)(int64_t tid, int warp_size);

// The rules of the seed's kernels, written out independently of the device code.
bool even_thread(int64_t tid, int warp_size);            // mathKernel1, mathKernel3, maskKernel<0x01>
bool even_warp(int64_t tid, int warp_size);              // mathKernel2, warmingup: (tid / warpSize) % 2 == 0
bool never(int64_t tid, int warp_size);                  // the book's mathKernel4: itid & (0x01 == 0) is 0
bool even_warp_of_32(int64_t tid, int warp_size);        // mathKernel4_fixed, maskKernel<0x20>: bit 5 of tid is 0

inline float expected_value(BranchRule rule, int64_t tid, int warp_size) {
  return rule(tid, warp_size) ? kIfValue : kElseValue;
}

struct WarpPaths {
  uint64_t warps = 0;
  uint64_t divergent = 0;  // warps whose threads take both branches
  double divergent_fraction() const { return warps ? double(divergent) / double(warps) : 0.0; }
};

// Over `threads` consecutive threads from tid 0, cut into warps of `warp_size` (block sizes are
// multiples of the warp size, so warps never straddle blocks). The last warp may be partial.
WarpPaths count_divergent_warps(BranchRule rule, uint64_t threads, int warp_size);

struct OutputCheck {
  uint64_t checked = 0;
  uint64_t mismatches = 0;
  int64_t first_bad = -1;  // thread index of the first mismatch
  float expected_at_first = 0, got_at_first = 0;
  bool ok() const { return checked > 0 && mismatches == 0; }
  // "ok", or "WRONG at tid T: expected E got G (M of N values)".
  std::string verdict() const;
};

// Compares got[0 .. threads) with the rule's values, exactly (the kernels write exact constants).
OutputCheck check_output(const float* got, uint64_t threads, BranchRule rule, int warp_size);

}  // namespace warpfold::lab::divergence
