#include "lab/registers/register_workspace.hpp"

#include "harness/splitmix64.hpp"
#include "lab/registers/register_run.hpp"

#include <warpfold/error.hpp>

namespace warpfold::lab {

RegisterWorkspace::RegisterWorkspace(uint64_t n, uint64_t seed, cudaStream_t stream)
    : n_(n), stream_(stream), in_(n * registers::kValues), out_(n) {
  std::vector<uint32_t> in(n * registers::kValues);
  harness::splitmix64 draw{seed};
  for (uint32_t& v : in) v = uint32_t(draw() >> 32);
  expected_ = registers_reference(in, n);
  preset_.resize(n);
  for (uint64_t t = 0; t < n; ++t) preset_[t] = ~expected_[t];
  // On the lesson's stream, then waited for: a pageable cudaMemcpy may return before its copy
  // lands, and the non-blocking stream would not wait for it.
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(in_.get(), in.data(), in_.bytes(), cudaMemcpyHostToDevice, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

uint64_t RegisterWorkspace::bytes_needed(uint64_t n) { return n * (registers::kValues + 1) * sizeof(uint32_t); }

void RegisterWorkspace::launch(const registers::RegisterVariant& v) {
  registers::launch_variant(v, in_.get(), out_.get(), n_, stream_);
}

std::string RegisterWorkspace::run_and_check(const registers::RegisterVariant& v) {
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(out_.get(), preset_.data(), out_.bytes(), cudaMemcpyHostToDevice, stream_));
  launch(v);
  std::vector<uint32_t> got(n_);
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(got.data(), out_.get(), out_.bytes(), cudaMemcpyDeviceToHost, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return compare_outputs(expected_, got);
}

}  // namespace warpfold::lab
