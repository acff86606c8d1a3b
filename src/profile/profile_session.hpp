#pragma once
// A profile of one lesson: warpfold runs itself under ncu with the lesson's profile pass (each
// kernel launched once, the launches written to a manifest), then reads back ncu's CSV and the
// manifest. The checks that need no GPU come first, so that a missing tool or device is one clear
// message before anything runs.

#include "profile/launch_manifest.hpp"
#include "profile/ncu_run.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpfold::profile {

// `explicit_path` when given (it must be an executable file), else the first ncu found (see
// tool_locate.hpp). Throws harness::RunStopped(tool_missing) naming where it looked.
std::string find_ncu(const std::optional<std::string>& explicit_path);

// The same for cuobjdump.
std::string find_cuobjdump(const std::optional<std::string>& explicit_path);

// Throws harness::RunStopped(no_device) with the lab's no-device line when there is no CUDA device.
void require_cuda_device();

struct ProfiledProgram {
  NcuCapture ncu;
  LaunchManifest launches;
};

// Runs `program` (warpfold's own path, the lesson and its arguments) under ncu with
// "--profile-pass <manifest>" appended, in a temporary folder that is removed afterwards.
ProfiledProgram profile_program(const NcuSettings& settings, std::vector<std::string> program);

}  // namespace warpfold::profile
