#pragma once
// The ladder's profile pass (lab/profile_pass.hpp says what a profile pass is).

#include "lab/ladder/ladder_run.hpp"
#include "lab/profile_pass.hpp"

namespace warpfold::lab {

// validate_ladder_options, and one block size: a block sweep is not profiled.
void validate_ladder_profile_options(const LadderOptions& options);

// Rows "<kernel> (book|fixed)", in ladder order, for the kernels the book's launch rule launches.
profile::LaunchManifest ladder_profile_pass(const LadderOptions& options);

// Each row's time and check from the ladder's table, labelled as the pass labels its launches.
profile::TimedRows ladder_timed_rows(const report::Report& report);

}  // namespace warpfold::lab
