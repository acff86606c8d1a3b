#pragma once
// The live SASS tests' access to cuobjdump and to this test binary's machine code. Where either is
// missing the tests skip, saying why, so that a machine without the CUDA tools (CI) stays green.

#include "harness/run_outcome.hpp"
#include "profile/profile_session.hpp"
#include "profile/sass_listing.hpp"
#include "profile/sass_lookup.hpp"
#include "profile/tool_locate.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpfold::testing {

// cuobjdump's path, or an empty path and why it was not found.
inline std::pair<std::string, std::string> installed_cuobjdump() {
  try {
    return {profile::find_cuobjdump(std::nullopt), ""};
  } catch (const harness::RunStopped& f) {
    return {"", f.what()};
  }
}

// The sm_90 code of the kernels of this binary that answer `query`, or why there is none to check
// (`missing`). A kernel absent from the binary is an error (load_sass throws), not a skip.
struct Sm90Sass {
  std::vector<profile::SassFunction> functions;
  std::string missing;
};

inline Sm90Sass sm90_sass(const profile::SassQuery& query) {
  const auto [cuobjdump, why] = installed_cuobjdump();
  if (cuobjdump.empty()) return {{}, "cuobjdump not installed, live SASS test not run: " + why};
  Sm90Sass out;
  for (profile::SassFunction& f : profile::load_sass(cuobjdump, profile::self_executable(), query)) {
    if (f.arch == "sm_90") out.functions.push_back(std::move(f));
  }
  if (out.functions.empty()) {
    out.missing = "this binary holds no sm_90 code for " + query.kernel + " (built without 90 in CMAKE_CUDA_ARCHITECTURES)";
  }
  return out;
}

}  // namespace warpfold::testing
