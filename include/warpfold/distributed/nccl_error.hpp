#pragma once
// NCCL failures as exceptions, the way error.hpp turns CUDA failures into warpfold::cuda_error:
// the call, the place, NCCL's own message and, where NCCL kept one, its last error in words.

#include <nccl.h>

#include <stdexcept>
#include <string>

namespace warpfold {

class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

namespace detail {
inline std::string describe_nccl_failure(ncclResult_t code, const char* expr, const char* file, int line) {
  std::string what = std::string(expr) + " failed at " + file + ":" + std::to_string(line) + ": " +
                     ncclGetErrorString(code);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
  // The detail NCCL recorded (which peer, which system call); empty when it has none.
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') {
    what += " (" + std::string(last) + ")";
  }
#endif
  return what + "; NCCL_DEBUG=WARN (or INFO) makes NCCL say more";
}

inline void throw_on_nccl_error(ncclResult_t code, const char* expr, const char* file, int line) {
  if (code == ncclSuccess) return;
  throw nccl_error(code, describe_nccl_failure(code, expr, file, line));
}
}  // namespace detail

}  // namespace warpfold

#define WARPFOLD_NCCL_CHECK(expr) \
  ::warpfold::detail::throw_on_nccl_error((expr), #expr, __FILE__, __LINE__)
