#pragma once
// Finding the CUDA tools the profiler runs: ncu (Nsight Compute) and cuobjdump. Neither is needed by
// the rest of warpfold, so a missing tool is reported by the command that wanted it, alone.

#include <optional>
#include <string>
#include <vector>

namespace warpfold::profile {

// Where to look, captured from the environment (or set by a test).
struct ToolSearch {
  std::string path;       // $PATH
  std::string cuda_home;  // $CUDA_HOME, else $CUDA_PATH
  // Installation roots searched after those: /usr/local/cuda and Nsight Compute's default
  // /opt/nvidia/nsight-compute/<version>/.
  std::vector<std::string> install_roots{"/usr/local/cuda"};
  std::vector<std::string> nsight_compute_roots{"/opt/nvidia/nsight-compute"};

  static ToolSearch from_environment();
};

// The candidate paths for `tool`, in search order: each $PATH entry, $CUDA_HOME/bin, each install
// root's bin/, then for ncu the versioned Nsight Compute folders (newest version first) under the
// CUDA roots (nsight-compute-<version>/) and under each Nsight Compute root (<version>/).
std::vector<std::string> tool_candidates(const std::string& tool, const ToolSearch& where);

// The first candidate that is an executable file.
std::optional<std::string> locate_tool(const std::string& tool, const ToolSearch& where);

// The places searched, for the message when nothing was found.
std::string describe_search(const std::string& tool, const ToolSearch& where);

bool is_executable_file(const std::string& path);

// The path of the running program (/proc/self/exe), for re-running warpfold under ncu.
std::string self_executable();

}  // namespace warpfold::profile
