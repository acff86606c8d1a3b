#pragma once
// What `warpfold profile <lesson>` needs to know of each lesson: the arguments that make the
// profiled run (under ncu) use the same options as the timed run, the timed run itself, and where
// its table keeps each row's time and check.

#include "lab/divergence/divergence_run.hpp"
#include "lab/grid_shape/grid_run.hpp"
#include "harness/run_outcome.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/nested/nested_plan.hpp"
#include "profile/profile_table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace warpfold::cli {

struct LessonProfile {
  std::string lesson;                   // "ladder"
  std::vector<std::string> lesson_args; // {"ladder", "--n", "16777216", ...}: warpfold's arguments
  std::function<harness::RunOutcome()> timed_run;
  std::function<profile::TimedRows(const report::Report&)> timed_rows;
};

// Each takes the lesson's options with the seed already fixed (the profiled and the timed run
// draw the same input).
LessonProfile ladder_profile(const lab::LadderOptions& options);
LessonProfile divergence_profile(const lab::DivergenceOptions& options);
LessonProfile grid_profile(const lab::GridOptions& options);
LessonProfile nested_profile(const lab::NestedOptions& options);

// Reads `median_column` and `check_column` of every row of `table`, labelled by `label`. Throws
// std::logic_error when the table lacks a column (the lesson's table changed shape).
profile::TimedRows timed_rows_of(const report::Table& table, const std::function<std::string(const std::vector<nlohmann::json>&)>& label,
                                 const std::string& median_column, const std::string& check_column);

}  // namespace warpfold::cli
