#pragma once
// Why a profile could not be made. The CLI turns each kind into its exit code.

#include <stdexcept>
#include <string>

namespace warpfold::profile {

enum class FailureKind {
  tool_missing,           // ncu or cuobjdump not found (or not runnable)
  no_counter_permission,  // ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM)
  no_device,              // no CUDA device: nothing to profile
  tool_failed,            // the tool ran but gave no results (an error, a time-out)
  bad_request,            // the request names nothing that exists (an unknown kernel)
};

class ProfileFailure : public std::runtime_error {
 public:
  ProfileFailure(FailureKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  FailureKind kind() const { return kind_; }

 private:
  FailureKind kind_;
};

}  // namespace warpfold::profile
