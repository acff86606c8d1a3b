#pragma once
// The nested lesson's profile pass (lab/profile_pass.hpp says what a profile pass is).

#include "lab/nested/nested_plan.hpp"
#include "lab/profile_pass.hpp"

namespace warpfold::lab {

// Rows "neighbored", "nested", "nestedNosync", "nested2": the host-launched top grids (ncu profiles
// host launches; the device-side child grids run inside their parent's profiled launch).
profile::LaunchManifest nested_profile_pass(const NestedOptions& options);

// Each row's time and check from the nested table.
profile::TimedRows nested_timed_rows(const report::Report& report);

}  // namespace warpfold::lab
