#pragma once
// The hidden option that makes a lesson command run its profile pass (lab/profile_pass.hpp)
// instead of its timed run: `warpfold profile <lesson>` runs `warpfold <lesson> ... --profile-pass
// FILE` under ncu and reads the launches back from FILE.

#include "cli/command.hpp"
#include "profile/launch_manifest.hpp"

#include <functional>
#include <string>

namespace warpfold::cli {

void add_profile_pass_option(CLI::App& sub, std::string& manifest_path);

// Runs `pass` and writes its launches to `manifest_path`; prints nothing on stdout (ncu's CSV
// shares it). kExitNoDevice, with the one no-device line on stderr, when there is no device.
int run_profile_pass(const std::function<profile::LaunchManifest()>& pass, const std::string& manifest_path);

}  // namespace warpfold::cli
