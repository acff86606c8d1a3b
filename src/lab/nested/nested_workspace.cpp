#include "lab/nested/nested_workspace.hpp"

#include "harness/int_sum_check.hpp"
#include "lab/ladder/cpu_reduce.hpp"

#include <warpfold/error.hpp>

namespace warpfold::lab {

size_t NestedWorkspace::bytes_needed(uint64_t n, unsigned block) {
  const NestedShape s = nested_shape(n, block);
  return (2 * s.padded_n() + s.grid) * sizeof(int) + sizeof(NestedLaunchRecord);
}

NestedWorkspace::NestedWorkspace(const std::vector<int>& input, int64_t exact_sum, unsigned block,
                                 cudaStream_t stream)
    : shape_(nested_shape(input.size(), block)),
      expected_(harness::wrap_to_int32(exact_sum)),
      stream_(stream),
      pristine_(shape_.padded_n()),
      work_(shape_.padded_n()),
      partials_(shape_.grid),
      record_(1) {
  std::vector<int> padded(input);
  padded.resize(shape_.padded_n(), 0);  // the identity: padding never changes the sum
  // On the stream, then waited for: a copy from pageable memory may return before its DMA lands.
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(pristine_.get(), padded.data(), pristine_.bytes(), cudaMemcpyHostToDevice, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void NestedWorkspace::restore() const {
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(work_.get(), pristine_.get(), work_.bytes(), cudaMemcpyDeviceToDevice, stream_));
}

void NestedWorkspace::reset_record() const {
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(record_.get(), 0, record_.bytes(), stream_));
}

void NestedWorkspace::launch(NestedVariant variant) const {
  launch_nested_reduce(variant, work_.get(), partials_.get(), shape_.grid, shape_.block, record_.get(), stream_);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
}

NestedCheck NestedWorkspace::run_and_check(NestedVariant variant) const {
  // Poison the partial sums so that a chain that never reached its end cannot pass on a stale value.
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(partials_.get(), 0x7f, partials_.bytes(), stream_));
  restore();
  reset_record();
  launch(variant);
  return check_runs(variant, 1);
}

NestedCheck NestedWorkspace::check_runs(NestedVariant variant, uint64_t runs) const {
  std::vector<int> partials(shape_.grid);
  NestedCheck c;
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(partials.data(), partials_.get(), partials_.bytes(), cudaMemcpyDeviceToHost, stream_));
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&c.record, record_.get(), sizeof c.record, cudaMemcpyDeviceToHost, stream_));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  int32_t sum = 0;
  for (int p : partials) sum = wrapping_int32_plus{}(sum, p);
  c.expected = expected_;
  c.got = sum;
  c.expected_launches = runs * nested_child_launches(variant, shape_.grid, shape_.block);
  return c;
}

}  // namespace warpfold::lab
