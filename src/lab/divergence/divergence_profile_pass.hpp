#pragma once
// The divergence lesson's profile pass (lab/profile_pass.hpp says what a profile pass is).

#include "lab/divergence/divergence_run.hpp"
#include "lab/profile_pass.hpp"

namespace warpfold::lab {

// Rows "<kernel> (-O3|-G)": each kernel in the optimised build, then in the -G build.
profile::LaunchManifest divergence_profile_pass(const DivergenceOptions& options);

// Each row's time and check from the divergence table: the -O3 and the -G columns of each kernel.
profile::TimedRows divergence_timed_rows(const report::Report& report);

}  // namespace warpfold::lab
