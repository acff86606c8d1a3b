#pragma once
// The grid lesson's profile pass (lab/profile_pass.hpp says what a profile pass is).

#include "lab/grid_shape/grid_run.hpp"
#include "lab/profile_pass.hpp"

namespace warpfold::lab {

// Rows "<width>x<height>": each block shape within the device's launch limits.
profile::LaunchManifest grid_profile_pass(const GridOptions& options);

// Each shape's time and check from the grid table.
profile::TimedRows grid_timed_rows(const report::Report& report);

}  // namespace warpfold::lab
