#pragma once
// Device buffers for running the ladder's in-place kernels on one input.
//
// The kernels overwrite their input, so a pristine copy is kept and copied back (untimed) before
// every run. Both copies are padded past n with kPaddingPoison: the book's kernels read past n
// where their assumptions fail, and in a real program that memory holds whatever lies there. The
// padding keeps those reads inside our allocation and makes their effect visible as a WRONG sum.

#include "harness/device_buffer.hpp"
#include "harness/int_sum_check.hpp"
#include "lab/ladder/registry.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::lab {

inline constexpr int kPaddingPoison = 0x01000001;

struct LadderCheck {
  unsigned grid = 0;
  bool launched = false;
  int64_t expected = 0;  // the int32 wrap of the exact sum (the ladder's kernels are int32)
  int64_t got = 0;       // wrapping int32 sum of the partial sums, as the book sums them on the host
  bool ok() const { return launched && expected == got; }
  std::string verdict() const;
};

class LadderWorkspace {
 public:
  LadderWorkspace(const std::vector<int>& input, int64_t exact_sum, cudaStream_t stream);

  // Device bytes a workspace for n elements needs (for a clear error before allocating), less
  // the library rung's scratch, a few KiB whatever n.
  static size_t bytes_needed(uint64_t n);
  // Host bytes the constructor takes on top of `input` (its padded staging copy).
  static size_t host_bytes_needed(uint64_t n);

  uint64_t n() const { return n_; }
  void restore() const;                                  // async on the stream, untimed
  bool launch(const LadderKernel& k, unsigned block) const;  // async; false if nothing launched
  // Restore, launch, wait and compare with the reference.
  LadderCheck run_and_check(const LadderKernel& k, unsigned block) const;

 private:
  uint64_t n_;
  int64_t expected_;
  cudaStream_t stream_;
  harness::DeviceBuffer<int> pristine_;
  harness::DeviceBuffer<int> work_;
  harness::DeviceBuffer<int> partials_;
  harness::DeviceBuffer<unsigned char> scratch_;  // ladder_scratch_bytes(), for the library's rung
};

}  // namespace warpfold::lab
