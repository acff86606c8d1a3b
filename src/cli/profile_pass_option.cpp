#include "cli/profile_pass_option.hpp"

#include "cli/finish.hpp"
#include "harness/device_info.hpp"

namespace warpfold::cli {

void add_profile_pass_option(CLI::App& sub, std::string& manifest_path) {
  sub.add_option("--profile-pass", manifest_path, "launch each kernel once and record the launches in FILE")
      ->group("");  // an internal interface of `warpfold profile`: not in --help
}

int run_profile_pass(const std::function<profile::LaunchManifest()>& pass, const std::string& manifest_path) {
  if (const auto reason = harness::cuda_unavailable_reason()) return no_device_exit(*reason);
  pass().write(manifest_path);
  return kExitOk;
}

}  // namespace warpfold::cli
