#pragma once
// The launches of a profile pass, in the order they were made. ncu numbers the kernels it
// profiles in launch order, so the n-th entry here is the n-th kernel in ncu's results; each entry
// also names the kernel, so that the pairing is checked, not assumed.
//
// The pass runs in the process ncu profiles and hands the manifest back through a file: one line
// per launch, "<row label>\t<kernel name>".

#include <string>
#include <vector>

namespace warpfold::profile {

struct ProfiledLaunch {
  std::string label;   // the row of the lesson's table: "reduceInterleaved (book)", "32x16", ...
  std::string kernel;  // the kernel's name in the lesson's registry: "reduceInterleaved"
};

class LaunchManifest {
 public:
  void add(std::string label, std::string kernel);
  const std::vector<ProfiledLaunch>& launches() const { return launches_; }

  // Throws std::runtime_error when the file cannot be written, or read back whole.
  void write(const std::string& path) const;
  static LaunchManifest read(const std::string& path);

 private:
  std::vector<ProfiledLaunch> launches_;
};

}  // namespace warpfold::profile
