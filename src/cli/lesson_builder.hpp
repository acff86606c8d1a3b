#pragma once
// How a lesson's declaration in lessons.cpp becomes a Lesson: the parts each lesson supplies (its
// options, how they resolve to the lab's, its run, its profile pass, its report sections), and the
// command, report sections and profile they make, built the same way for every lesson.

#include "cli/finish.hpp"
#include "cli/lesson.hpp"
#include "cli/profile_pass_option.hpp"
#include "harness/random_data.hpp"
#include "profile/launch_manifest.hpp"

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpfold::cli {

// The options of one registration of a lesson: the lesson's own (Options) and those every lesson
// takes.
template <class Options>
struct LessonArgs : Options {
  OutputOptions output;
  std::string profile_pass;              // hidden --profile-pass FILE (profile_pass_option.hpp)
  std::vector<const CLI::Option*> own;   // the lesson's own options: what its profiled run repeats
};

// The options as parsed by `command`, a registration of a lesson whose options are `Options`;
// throws std::bad_any_cast for another lesson's.
template <class Options>
LessonArgs<Options>& parsed_args(const LessonCommand& command) {
  return *std::any_cast<std::shared_ptr<LessonArgs<Options>>>(command.parsed);
}

// `lesson` and, in order, each of `options` that was given, with its value as parsed ("2^20" as
// 1048576): warpfold's arguments that repeat the run.
std::vector<std::string> repeated_arguments(const std::string& lesson, const std::vector<const CLI::Option*>& options);

// Whether a lab's options carry an input seed (std::optional<uint64_t> seed: fresh when empty).
template <class T, class = void>
struct has_input_seed : std::false_type {};
template <class T>
struct has_input_seed<T, std::void_t<decltype(std::declval<T&>().seed)>> : std::true_type {};

// Options: the command's options (XCommandOptions); Run: the lab's, which the run takes.
template <class Options, class Run>
class LessonBuilder {
 public:
  using AddOptions = void (*)(CLI::App&, Options&);
  using Resolve = Run (*)(const Options&);
  using RunLesson = harness::RunOutcome (*)(const Run&);

  LessonBuilder(std::string name, std::string description, AddOptions add_options, Resolve resolve, RunLesson run)
      : name_(std::move(name)), description_(std::move(description)), add_options_(add_options), resolve_(resolve),
        run_(run) {}

  // The profile pass (lab/profile_pass.hpp), the check of the options it takes (made before ncu
  // starts), and where the timed run's table keeps each row's time and check.
  LessonBuilder& profile_pass(profile::LaunchManifest (*pass)(const Run&), void (*validate)(const Run&),
                              profile::TimedRows (*timed_rows)(const report::Report&)) {
    pass_ = pass;
    validate_ = validate;
    timed_rows_ = timed_rows;
    return *this;
  }

  // Its profile also collects the warp scheduler's counters and prints them as a second table
  // (profile/warp_state_table.hpp).
  LessonBuilder& profile_warp_state() {
    warp_state_ = true;
    return *this;
  }

  // What runs instead of the lesson when one of the lesson's own subcommands was given.
  LessonBuilder& subcommand(int (*run)(const Options&)) {
    subcommand_ = run;
    return *this;
  }

  // A section of `warpfold report`: the lesson's run with `args` (`quick_args` under --quick).
  LessonBuilder& section(std::string key, std::string title, std::vector<std::string> args,
                         std::vector<std::string> quick_args) {
    sections_.push_back({std::move(key), std::move(title), std::move(args), std::move(quick_args), false});
    return *this;
  }

  // The same under ncu (the lesson's profile, as `warpfold profile` makes it).
  LessonBuilder& profiled_section(std::string key, std::string title, std::vector<std::string> args,
                                  std::vector<std::string> quick_args) {
    sections_.push_back({std::move(key), std::move(title), std::move(args), std::move(quick_args), true});
    return *this;
  }

  operator Lesson() const {
    const LessonBuilder self = *this;
    return {name_, [self](CLI::App& parent) { return self.add(parent); }, sections_, pass_ != nullptr};
  }

 private:
  LessonCommand add(CLI::App& parent) const {
    auto args = std::make_shared<LessonArgs<Options>>();
    CLI::App* sub = parent.add_subcommand(name_, description_);
    add_options_(*sub, *args);
    for (const CLI::Option* option : sub->get_options()) {
      if (option->get_name() != "--help") args->own.push_back(option);
    }
    add_output_options(*sub, args->output);
    if (pass_) add_profile_pass_option(*sub, args->profile_pass);

    const LessonBuilder self = *this;
    LessonCommand c;
    c.app = sub;
    c.output = &args->output;
    c.parsed = args;
    c.timed_run = [self, args] { return self.run_(self.resolve_(*args)); };
    c.run = [self, args, sub]() -> int {
      if (self.subcommand_ && !sub->get_subcommands().empty()) return self.subcommand_(*args);
      const Run run = self.resolve_(*args);
      if (!args->profile_pass.empty()) {
        return run_profile_pass([&] { return self.pass_(run); }, args->profile_pass);
      }
      return finish(self.run_(run), args->output);
    };
    if (pass_) c.profile = [self, args] { return self.profile(*args); };
    return c;
  }

  LessonProfile profile(const LessonArgs<Options>& args) const {
    Run run = resolve_(args);
    validate_(run);
    std::vector<std::string> repeated = repeated_arguments(name_, args.own);
    if constexpr (has_input_seed<Run>::value) {
      if (!run.seed) {
        run.seed = harness::fresh_seed();
        repeated.insert(repeated.end(), {"--seed", std::to_string(*run.seed)});
      }
    }
    const RunLesson run_lesson = run_;
    return {name_, repeated, [run, run_lesson] { return run_lesson(run); }, timed_rows_, warp_state_};
  }

  std::string name_, description_;
  AddOptions add_options_;
  Resolve resolve_;
  RunLesson run_;
  profile::LaunchManifest (*pass_)(const Run&) = nullptr;
  void (*validate_)(const Run&) = nullptr;
  profile::TimedRows (*timed_rows_)(const report::Report&) = nullptr;
  bool warp_state_ = false;
  int (*subcommand_)(const Options&) = nullptr;
  std::vector<ReportSection> sections_;
};

}  // namespace warpfold::cli
