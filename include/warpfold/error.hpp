#pragma once
// Errors raised by warpfold: every CUDA runtime call is checked and a failure becomes an exception
// that names the call, the place and the runtime's own message.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace warpfold {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
inline void throw_on_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw cuda_error(code, std::string(expr) + " failed at " + file + ":" + std::to_string(line) +
                             ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}
}  // namespace detail

}  // namespace warpfold

#define WARPFOLD_CUDA_CHECK(expr) \
  ::warpfold::detail::throw_on_cuda_error((expr), #expr, __FILE__, __LINE__)
