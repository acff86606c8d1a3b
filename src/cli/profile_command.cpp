#include "cli/profile_command.hpp"

#include "cli/finish.hpp"
#include "profile/book_metrics.hpp"
#include "profile/profile_session.hpp"
#include "profile/sass_lookup.hpp"
#include "profile/sass_report.hpp"
#include "profile/tool_locate.hpp"
#include "profile/warp_state_metrics.hpp"
#include "profile/warp_state_table.hpp"

#include <optional>
#include <stdexcept>
#include <vector>

namespace warpfold::cli {
namespace {

std::optional<std::string> given(const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); }

void add_ncu_options(CLI::App& sub, NcuCliOptions& o) {
  sub.add_option("--ncu", o.ncu, "the ncu executable (default: PATH, $CUDA_HOME/bin, /usr/local/cuda, /opt/nvidia/nsight-compute)");
  sub.add_option("--timeout", o.timeout_seconds, "seconds the ncu session may take before it is ended")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  sub.add_option("--clock-control", o.clock_control,
                 "base: ncu locks the clocks to base while it measures (comparable counters); none: clocks float")
      ->check(CLI::IsMember({"base", "none"}))
      ->capture_default_str();
  sub.add_option("--ncu-csv", o.csv_out, "also write ncu's raw output (its CSV) to FILE")->check(output_file_check());
}

nlohmann::json metric_mapping() {
  nlohmann::json m = nlohmann::json::object();
  for (const profile::BookMetric& b : profile::book_metrics()) m[std::string(b.book)] = b.ncu;
  return m;
}

}  // namespace

harness::RunOutcome profile_lesson_report(const LessonProfile& lesson, const NcuCliOptions& o) {
  profile::NcuSettings settings;
  settings.ncu = profile::find_ncu(given(o.ncu));
  settings.clock_control = o.clock_control;
  settings.timeout_seconds = o.timeout_seconds;
  settings.warp_state = lesson.warp_state;
  profile::require_cuda_device();
  const std::string version = profile::ncu_version(settings.ncu);

  std::vector<std::string> program{profile::self_executable()};
  program.insert(program.end(), lesson.lesson_args.begin(), lesson.lesson_args.end());
  const profile::ProfiledProgram profiled = profile::profile_program(settings, program);
  if (!o.csv_out.empty()) report::write_output(o.csv_out, profiled.ncu.output);

  const harness::RunOutcome timed = lesson.timed_run();
  harness::RunOutcome out;
  out.gpu_ran = timed.gpu_ran;
  out.check_failed = timed.check_failed;
  report::Report& r = out.report;
  r.preamble.push_back("warpfold profile " + lesson.lesson + ": each kernel launched once under Nsight Compute " +
                       (version.empty() ? "" : version + " ") + "(" + settings.ncu + "), clock control " +
                       settings.clock_control + "; times from the lesson's CUDA-event run");
  r.preamble.insert(r.preamble.end(), timed.report.preamble.begin(), timed.report.preamble.end());
  r.meta["command"] = "profile " + lesson.lesson;
  r.meta["ncu"] = {{"path", settings.ncu},
                   {"version", version},
                   {"clock_control", settings.clock_control},
                   {"exit", profiled.ncu.process.describe()},
                   {"metrics", metric_mapping()}};
  if (lesson.warp_state) r.meta["ncu"]["warp_state_metrics"] = profile::warp_state_metric_names();
  r.meta["profiled_run"] = lesson.lesson_args;
  r.meta["timed_run"] = timed.report.meta;

  report::Table table = profile::profile_table(lesson.lesson + ": the book's nvprof metrics, measured with Nsight Compute",
                                               profiled.launches.launches(), profiled.ncu.kernels,
                                               lesson.timed_rows(timed.report));
  table.notes.insert(table.notes.begin(),
                     "time ms: median CUDA-event time of the lesson's timed run (same options, same input); "
                     "ncu ms: ncu's duration of its replay of the single profiled launch, with clock control " +
                         settings.clock_control);
  if (!profiled.ncu.process.ok()) table.notes.push_back("ncu ended with " + profiled.ncu.process.describe());
  for (const std::string& m : profiled.ncu.messages) table.notes.push_back("ncu: " + m);
  r.tables.push_back(std::move(table));
  if (lesson.warp_state) {
    r.tables.push_back(profile::warp_state_table(lesson.lesson + ": warp scheduling, measured with Nsight Compute",
                                                 profiled.launches.launches(), profiled.ncu.kernels));
  }
  return out;
}

namespace {

int run_lesson_profile(const LessonProfile& lesson, const NcuCliOptions& o, const OutputOptions& output) {
  return finish(profile_lesson_report(lesson, o), output);
}

int run_sass(const SassCliOptions& o) {
  const std::string cuobjdump = profile::find_cuobjdump(given(o.cuobjdump));
  const std::string binary = o.binary.empty() ? profile::self_executable() : o.binary;
  const auto functions = profile::load_sass(cuobjdump, binary, {o.kernel, o.variant});
  const report::Format format = *report::parse_format(o.output.format);
  const bool text_listing = !o.summary_only && (format == report::Format::table || format == report::Format::md);
  std::string text = text_listing ? profile::sass_listing_text(functions, format == report::Format::md) : "";
  const bool json_listing = !o.summary_only && format == report::Format::json;
  text += report::render(profile::sass_report(functions, o.kernel, binary, cuobjdump, json_listing), format);
  report::write_output(o.output.out, text);
  return kExitOk;
}

// The first of `sass_only` given on the command line, or nullptr. Those options sit on `profile`
// itself, before a lesson's name, and belong to --sass: with a lesson they would go unused.
const CLI::Option* sass_option_given(const std::vector<const CLI::Option*>& sass_only) {
  for (const CLI::Option* option : sass_only) {
    if (option->count()) return option;
  }
  return nullptr;
}

// The error for a --sass option given with `lesson`.
std::string sass_option_with_lesson_error(const CLI::Option& option, const std::string& lesson) {
  const std::string name = option.get_name();
  std::string message = name + " is an option of --sass, which takes no lesson";
  // A lesson has output options of its own, after its name: what the user most likely meant.
  if (name == "--out" || name == "--format") {
    message += "; the lesson takes its own after its name: warpfold profile " + lesson + " " + name + " " +
               option.as<std::string>();
  }
  return message;
}

// "ladder|divergence|...": the lessons `profile` takes.
std::string lesson_names(const std::vector<LessonCommand>& lessons) {
  std::string names;
  for (const LessonCommand& l : lessons) names += (names.empty() ? "" : "|") + l.app->get_name();
  return names;
}

// The lesson named on the command line, or nullptr.
const LessonCommand* lesson_given(const std::vector<LessonCommand>& lessons) {
  for (const LessonCommand& l : lessons) {
    if (l.app->parsed()) return &l;
  }
  return nullptr;
}

}  // namespace

Command add_profile_command(CLI::App& app, ProfileCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "profile", "the book's nvprof tables with Nsight Compute (profile LESSON), the SASS behind them (--sass KERNEL)");
  sub->require_subcommand(0, 1);
  for (const Lesson& lesson : lessons()) {
    if (!lesson.has_profile_pass) continue;
    LessonCommand command = lesson.add(*sub);  // the lesson's own options, then the ncu session's
    command.app->description("profile `warpfold " + lesson.name + "` with Nsight Compute: the book's nvprof metrics per kernel");
    add_ncu_options(*command.app, o.ncu);
    o.lessons.push_back(std::move(command));
  }

  sub->add_option("--sass", o.sass.kernel,
                  "print KERNEL's SASS and its summary (e.g. reduceInterleaved, book::reduceUnrollWarps8, "
                  "reduceCompleteUnroll<512>); needs cuobjdump, no GPU");
  std::vector<const CLI::Option*> sass_only{
      sub->add_option("--variant", o.sass.variant, "with --sass: the ladder's book or fixed kernels only")
          ->check(CLI::IsMember({"book", "fixed", "all"}))
          ->capture_default_str(),
      sub->add_option("--binary", o.sass.binary, "with --sass: the binary to read (default: this warpfold)")
          ->check(CLI::ExistingFile),
      sub->add_option("--cuobjdump", o.sass.cuobjdump, "with --sass: the cuobjdump executable"),
      sub->add_flag("--summary-only", o.sass.summary_only, "with --sass: the summary table without the listing")};
  add_output_options(*sub, o.sass.output);
  for (const char* name : {"--format", "--out"}) sass_only.push_back(sub->get_option(name));

  return {sub, [&o, sass_only]() {
            const LessonCommand* lesson = lesson_given(o.lessons);
            if (lesson && !o.sass.kernel.empty()) {
              throw std::invalid_argument("--sass takes no lesson: `warpfold profile --sass KERNEL`");
            }
            if (const CLI::Option* option = sass_option_given(sass_only); lesson && option) {
              throw std::invalid_argument(sass_option_with_lesson_error(*option, lesson->app->get_name()));
            }
            if (!lesson && o.sass.kernel.empty()) {
              throw std::invalid_argument("name a lesson (profile " + lesson_names(o.lessons) +
                                          ") or a kernel (profile --sass KERNEL)");
            }
            if (lesson && !lesson->app->get_subcommands().empty()) {
              const std::string name = lesson->app->get_name();
              throw std::invalid_argument("`" + name + " " + lesson->app->get_subcommands().front()->get_name() +
                                          "` is not profiled: use `profile " + name + "`");
            }
            if (lesson) return run_lesson_profile(lesson->profile(), o.ncu, *lesson->output);
            return run_sass(o.sass);
          }};
}

}  // namespace warpfold::cli
