#include "multigpu/run_common.hpp"

#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/distributed/nvlink_multicast.hpp>
#include <warpfold/error.hpp>

#include <stdexcept>

namespace warpfold::multigpu {

size_t device_bytes_needed(const MultigpuOptions& o) {
  // NCCL's buffers per peer connection are a few MiB each and the temp storage a few KiB; 1 GiB
  // leaves room for both and for the context on any number of GPUs.
  return size_t(o.n_per_gpu) * bench::element_bytes(o.type) + (size_t(1) << 30);
}

std::string describe_shard(const MultigpuOptions& o) {
  return "a shard of " + std::to_string(o.n_per_gpu) + " " + bench::to_string(o.type) + " elements";
}

std::string require_nvlink_multicast_off() {
  const distributed::nvls_setting s = distributed::keep_nvlink_multicast_off();
  if (s == distributed::nvls_setting::enabled_by_environment) {
    throw std::invalid_argument(distributed::describe(s) + ": warpfold multigpu keeps NVLink multicast off (a "
                                "one-element all-reduce gains nothing from it, and on shared hosts it can take the "
                                "GPUs out of service); unset NCCL_NVLS_ENABLE or set it to 0");
  }
  return distributed::describe(s);
}

std::string loaded_nccl_version() {
  int code = 0;
  WARPFOLD_NCCL_CHECK(ncclGetVersion(&code));
  return nccl_version_string(code);
}

std::string no_device_line(const std::string& reason) {
  return "no CUDA device (" + reason + "): warpfold multigpu needs at least one GPU, nothing ran";
}

OwnedStream::OwnedStream() { WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

OwnedStream::~OwnedStream() {
  if (stream_) cudaStreamDestroy(stream_);
}

}  // namespace warpfold::multigpu
