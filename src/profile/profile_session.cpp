#include "profile/profile_session.hpp"

#include "harness/device_info.hpp"
#include "harness/run_context.hpp"
#include "harness/run_outcome.hpp"
#include "profile/tool_locate.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace warpfold::profile {
namespace {

namespace fs = std::filesystem;

// A private folder under $TMPDIR (or /tmp), removed with everything in it when destroyed.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/warpfold-profile-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      throw std::runtime_error("cannot create a temporary folder (" + pattern + "): " + std::strerror(errno));
    }
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string find_tool(const std::string& tool, const std::optional<std::string>& explicit_path, const std::string& hint) {
  if (explicit_path) {
    if (is_executable_file(*explicit_path)) return *explicit_path;
    throw harness::RunStopped(harness::Stop::tool_missing, tool + " not found: '" + *explicit_path + "' is not an executable file");
  }
  const ToolSearch where = ToolSearch::from_environment();
  if (auto found = locate_tool(tool, where)) return *found;
  throw harness::RunStopped(harness::Stop::tool_missing,
                       tool + " not found (looked in " + describe_search(tool, where) + "). " + hint);
}

}  // namespace

std::string find_ncu(const std::optional<std::string>& explicit_path) {
  return find_tool("ncu", explicit_path,
                   "Install Nsight Compute (it comes with the CUDA toolkit) or give its path with --ncu PATH.");
}

std::string find_cuobjdump(const std::optional<std::string>& explicit_path) {
  return find_tool("cuobjdump", explicit_path,
                   "It comes with the CUDA toolkit (bin/); give its path with --cuobjdump PATH.");
}

void require_cuda_device() {
  if (const auto reason = harness::cuda_unavailable_reason()) {
    throw harness::RunStopped(harness::Stop::no_device, harness::no_device_message(*reason) + ": nothing to profile");
  }
}

ProfiledProgram profile_program(const NcuSettings& settings, std::vector<std::string> program) {
  const TempDir dir;
  const std::string manifest = dir.path() + "/launches.tsv";
  program.push_back("--profile-pass");
  program.push_back(manifest);
  ProfiledProgram out;
  out.ncu = run_ncu(settings, program);
  try {
    out.launches = LaunchManifest::read(manifest);
  } catch (const std::runtime_error& e) {
    // The profiled run failed before it could say what it launched: its own error is in ncu's output.
    throw harness::RunStopped(harness::Stop::failed, std::string(e.what()) + "; the profiled run ended with " +
                                                       out.ncu.process.describe() + ":\n" +
                                                       last_lines(out.ncu.process.err + out.ncu.process.out, 8));
  }
  return out;
}

}  // namespace warpfold::profile
