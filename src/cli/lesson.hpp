#pragma once
// The lessons of the chapter as every command meets them. Each lesson is declared once, in
// lessons.cpp, and every list derives from that declaration: its command (`warpfold <lesson>`),
// its sections of `warpfold report`, and, where it has a profile pass, `warpfold profile <lesson>`.
// CONTRIBUTING.md says how to add one.

#include "cli/command.hpp"
#include "harness/run_outcome.hpp"
#include "profile/profile_table.hpp"

#include <any>
#include <functional>
#include <string>
#include <vector>

namespace warpfold::cli {

// A lesson as `warpfold profile` runs it: warpfold's arguments that repeat the lesson's run under
// ncu (its name first, the seed fixed, so that both runs draw the same input), the timed run in
// this process with the same options, and where its table keeps each row's time and check.
struct LessonProfile {
  std::string lesson;
  std::vector<std::string> lesson_args;
  std::function<harness::RunOutcome()> timed_run;
  std::function<profile::TimedRows(const report::Report&)> timed_rows;
  bool warp_state = false;  // also the warp scheduler's counters, as a table of their own
};

// One registration of a lesson's command, its options bound to state it owns.
struct LessonCommand {
  CLI::App* app = nullptr;
  std::function<int()> run;                        // the command as the user runs it: output and exit code
  std::function<harness::RunOutcome()> timed_run;  // the lesson's run alone, with the options as parsed
  std::function<LessonProfile()> profile;          // empty where the lesson has no profile pass
  OutputOptions* output = nullptr;
  std::any parsed;  // the options as parsed (LessonArgs<Options>, lesson_builder.hpp), for the tests

  Command command() const { return {app, run}; }
};

// A section of `warpfold report`: the lesson run with these arguments, as if typed after its
// name (quick_args under --quick); a profiled section runs it under ncu, after every other.
struct ReportSection {
  std::string key;  // its entry in results.json
  std::string title;
  std::vector<std::string> args, quick_args;
  bool profiled = false;
};

struct Lesson {
  std::string name;  // its command
  std::function<LessonCommand(CLI::App& parent)> add;  // registers the command on `parent`
  std::vector<ReportSection> sections;
  bool has_profile_pass = false;
};

// Every lesson, in the chapter's order.
const std::vector<Lesson>& lessons();

// The lesson called `name`; throws std::logic_error when there is none.
const Lesson& find_lesson(const std::string& name);

// Registers `lesson` on `app` and parses `args` (the lesson's own, as typed after its name);
// throws what CLI11 throws.
LessonCommand parse_lesson(const Lesson& lesson, CLI::App& app, const std::vector<std::string>& args);

}  // namespace warpfold::cli
