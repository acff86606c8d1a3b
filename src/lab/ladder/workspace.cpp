#include "lab/ladder/workspace.hpp"

#include "lab/ladder/cpu_reduce.hpp"

#include "harness/sanitizer.hpp"

namespace warpfold::lab {
namespace {

// A book kernel touches at most grid × block × unroll ≤ n + block - 1 slots of its tile range,
// plus up to 32 more in its last warp step at block 32; one extra 1024 × 8 tile covers both.
constexpr uint64_t kPadding = 1024 * 8;
// The largest grid of the ladder: one block per 32 elements (block 32, no unrolling).
uint64_t max_partials(uint64_t n) { return (n + 31) / 32; }

}  // namespace

std::string LadderCheck::verdict() const {
  if (!launched) return "WRONG expected " + std::to_string(expected) + " got 0 (nothing launched)";
  return harness::verdict(expected, got);
}

size_t LadderWorkspace::bytes_needed(uint64_t n) {
  return (2 * (n + kPadding) + max_partials(n)) * sizeof(int);
}

size_t LadderWorkspace::host_bytes_needed(uint64_t n) { return (n + kPadding) * sizeof(int); }

LadderWorkspace::LadderWorkspace(const std::vector<int>& input, int64_t exact_sum, cudaStream_t stream)
    : n_(input.size()),
      expected_(harness::wrap_to_int32(exact_sum)),
      stream_(stream),
      pristine_(n_ + kPadding),
      work_(n_ + kPadding),
      partials_(max_partials(n_)),
      scratch_(ladder_scratch_bytes()) {
  std::vector<int> padded(input);
  padded.resize(n_ + kPadding, kPaddingPoison);
  // On the workspace's stream, then waited for: a plain cudaMemcpy from pageable memory may return
  // before its DMA lands, and the stream may be non-blocking (no implicit order with stream 0).
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(pristine_.get(), padded.data(), pristine_.bytes(), cudaMemcpyHostToDevice, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  // The library rung's scratch is its temp storage (written once under initcheck, as new temp storage is).
  WARPFOLD_CUDA_CHECK(harness::prepare_fresh_temp(scratch_.get(), scratch_.bytes(), stream_));
}

void LadderWorkspace::restore() const {
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(work_.get(), pristine_.get(), work_.bytes(), cudaMemcpyDeviceToDevice, stream_));
}

bool LadderWorkspace::launch(const LadderKernel& k, unsigned block) const {
  const bool launched = k.launch(work_.get(), partials_.get(), n_, ladder_grid(k, n_, block), block,
                                 {scratch_.get(), scratch_.bytes()}, stream_);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  return launched;
}

LadderCheck LadderWorkspace::run_and_check(const LadderKernel& k, unsigned block) const {
  LadderCheck c;
  c.grid = ladder_grid(k, n_, block);
  c.expected = expected_;
  // Poison the partial sums so a block that wrote nothing cannot pass on a stale value.
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(partials_.get(), 0x7f, partials_.bytes(), stream_));
  restore();
  c.launched = launch(k, block);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (c.launched) {
    std::vector<int> partials(c.grid);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(partials.data(), partials_.get(), c.grid * sizeof(int), cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    int32_t sum = 0;
    for (int p : partials) sum = wrapping_int32_plus{}(sum, p);
    c.got = sum;
  }
  return c;
}

}  // namespace warpfold::lab
