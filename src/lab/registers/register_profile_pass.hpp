#pragma once
// The register lesson's profile pass (lab/profile_pass.hpp says what a profile pass is).

#include "lab/profile_pass.hpp"
#include "lab/registers/register_run.hpp"

namespace warpfold::lab {

// Rows "<kernel> <limit>": every variant, once, checked.
profile::LaunchManifest registers_profile_pass(const RegistersOptions& options);

// Each variant's time and check from the register table.
profile::TimedRows registers_timed_rows(const report::Report& report);

}  // namespace warpfold::lab
