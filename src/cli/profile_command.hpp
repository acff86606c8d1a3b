#pragma once
// `warpfold profile`: the book's nvprof tables measured with Nsight Compute, per lesson with a
// profile pass (`profile LESSON [the lesson's options]`), and the machine code behind them
// (`profile --sass KERNEL`).

#include "cli/command.hpp"
#include "cli/lesson.hpp"

#include <string>
#include <vector>

namespace warpfold::cli {

// The options of the ncu session, on each lesson's profile subcommand.
struct NcuCliOptions {
  std::string ncu;                     // empty: search PATH and the CUDA installation
  double timeout_seconds = 900;
  std::string clock_control = "base";
  std::string csv_out;                 // where to keep ncu's raw output; empty: nowhere
};

struct SassCliOptions {
  std::string kernel;                  // empty: no --sass
  std::string variant = "all";
  std::string binary;                  // empty: warpfold itself
  std::string cuobjdump;               // empty: search PATH and the CUDA installation
  bool summary_only = false;
  OutputOptions output;
};

struct ProfileCommandOptions {
  std::vector<LessonCommand> lessons;  // `profile LESSON`: each lesson with a profile pass, its options its own
  NcuCliOptions ncu;
  SassCliOptions sass;
};

Command add_profile_command(CLI::App& app, ProfileCommandOptions& opts);

// A lesson profiled under ncu, joined with its timed run: what `warpfold profile <lesson>` prints
// and what `warpfold report` puts in its profiler section. Throws harness::RunStopped (no ncu,
// no permission for the counters, no device, ncu failed); the outcome's check is the timed run's.
harness::RunOutcome profile_lesson_report(const LessonProfile& lesson, const NcuCliOptions& options);

}  // namespace warpfold::cli
