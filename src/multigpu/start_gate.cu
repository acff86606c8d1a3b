#include "multigpu/start_gate.hpp"

#include <warpfold/error.hpp>

#include <atomic>

namespace warpfold::multigpu {
namespace {

constexpr unsigned long long kTimeoutNs = 10ull * 1000 * 1000 * 1000;

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// An acquire load at system scope: sees the host's store to pinned memory, never a cached copy.
__device__ unsigned load_from_host(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void wait_for_release(const unsigned* released, unsigned ticket, volatile unsigned* timed_out) {
  const unsigned long long start = global_ns();
  while (load_from_host(released) < ticket) {
    if (global_ns() - start > kTimeoutNs) {
      *timed_out = 1;
      return;
    }
    __nanosleep(256);
  }
}

}  // namespace

StartGate::StartGate() {
  // Portable: visible to every device; mapped: the kernels read it where it lives.
  WARPFOLD_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(unsigned),
                                    cudaHostAllocMapped | cudaHostAllocPortable));
  host_[0] = host_[1] = 0;
}

StartGate::~StartGate() {
  if (host_) {
    // A stream still held would spin until its timeout: let it go before the memory is freed.
    reinterpret_cast<volatile unsigned*>(host_)[0] = ~0u;
    cudaFreeHost(host_);
  }
}

void StartGate::arm() { ++ticket_; }

void StartGate::hold(cudaStream_t stream) {
  unsigned* device_view = nullptr;
  WARPFOLD_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host_, 0));
  wait_for_release<<<1, 1, 0, stream>>>(device_view, ticket_, device_view + 1);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
}

void StartGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile unsigned*>(host_)[0] = ticket_;
}

bool StartGate::timed_out() const { return reinterpret_cast<volatile unsigned*>(host_)[1] != 0; }

}  // namespace warpfold::multigpu
