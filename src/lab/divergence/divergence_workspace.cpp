#include "lab/divergence/divergence_workspace.hpp"

#include <warpfold/error.hpp>

#include <vector>

namespace warpfold::lab::divergence {

unsigned divergence_grid(uint64_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

size_t DivergenceWorkspace::bytes_needed(uint64_t n, unsigned block) {
  return size_t(divergence_grid(n, block)) * block * sizeof(float);
}

DivergenceWorkspace::DivergenceWorkspace(uint64_t n, unsigned block, cudaStream_t stream)
    : block_(block), grid_(divergence_grid(n, block)), stream_(stream), out_(threads()) {}

void DivergenceWorkspace::launch(const DivergenceKernel& k, Build build) const {
  k.in(build).launch(out_.get(), grid_, block_, stream_);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
}

OutputCheck DivergenceWorkspace::run_and_check(const DivergenceKernel& k, Build build, int warp_size) const {
  // All bytes 0xFF is a NaN, which equals no value: a thread that writes nothing fails the check.
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream_));
  launch(k, build);
  std::vector<float> host(out_.size());
  // On the workspace's stream (non-blocking: no implicit order with stream 0), then waited for.
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), out_.get(), out_.bytes(), cudaMemcpyDeviceToHost, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return check_output(host.data(), host.size(), k.takes_if, warp_size);
}

}  // namespace warpfold::lab::divergence
