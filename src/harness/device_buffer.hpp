#pragma once
// Owning device allocation. Allocation failure becomes a warpfold::cuda_error that says how many
// bytes were asked for, so "out of memory" reaches the user as a sentence, not a crash.

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace warpfold::harness {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t rc = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (rc != cudaSuccess) {
      cudaGetLastError();  // clear the (non-sticky) allocation error
      throw cuda_error(rc, "cannot allocate " + std::to_string(count * sizeof(T)) +
                               " bytes of device memory: " + cudaGetErrorString(rc));
    }
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace warpfold::harness
