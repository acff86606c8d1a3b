#pragma once
// The profile pass of each lesson: what `warpfold profile <lesson>` runs under ncu. It launches
// every kernel of the lesson once, through the same correctness check as the timed run (so every
// profiled launch is also checked), and nothing else: no warm-up, no timing, no bandwidth probe.
// ncu then profiles exactly these launches, in the order the manifest records them.
//
// Each pass needs a CUDA device (the caller checks first) and throws std::invalid_argument for
// options its lesson rejects.

#include "lab/divergence/divergence_run.hpp"
#include "lab/grid_shape/grid_run.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/nested/nested_plan.hpp"
#include "profile/launch_manifest.hpp"

#include <string>
#include <string_view>

namespace warpfold::lab {

// "reduceInterleaved (book)", "mathKernel1 (-G)": a kernel's row where one name has several builds.
std::string variant_label(std::string_view name, std::string_view variant);

// Rows "<kernel> (book|fixed)", in ladder order, for the kernels the book's launch rule launches.
profile::LaunchManifest ladder_profile_pass(const LadderOptions& options);

// Rows "<kernel> (-O3|-G)": each kernel in the optimised build, then in the -G build.
profile::LaunchManifest divergence_profile_pass(const DivergenceOptions& options);

// Rows "<width>x<height>": each block shape within the device's launch limits.
profile::LaunchManifest grid_profile_pass(const GridOptions& options);

// Rows "neighbored", "nested", "nestedNosync", "nested2": the host-launched top grids (ncu profiles
// host launches; the device-side child grids run inside their parent's profiled launch).
profile::LaunchManifest nested_profile_pass(const NestedOptions& options);

}  // namespace warpfold::lab
