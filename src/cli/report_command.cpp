#include "cli/report_command.hpp"

#include "chapter/chapter_report.hpp"
#include "cli/lesson.hpp"
#include "cli/profile_command.hpp"
#include "harness/run_outcome.hpp"
#include "lab/book/book_claims.hpp"

#include <filesystem>
#include <iostream>

#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

#ifndef WARPFOLD_SOURCE_DIR
#define WARPFOLD_SOURCE_DIR "."
#endif

namespace warpfold::cli {
namespace {

// The assembler turns results.json into report.md, report.html and the figures; its wrapper
// finds a Python with matplotlib.
std::string assembler_path() {
  if (const char* p = std::getenv("WARPFOLD_REPORT_ASSEMBLER")) return p;
  return std::string(WARPFOLD_SOURCE_DIR) + "/scripts/report/run_assembler.sh";
}

// Runs `sh ASSEMBLER results.json DIR` (an argument vector, no shell parsing of the paths);
// returns its exit status, or -1 when it could not be started.
int run_assembler(const std::string& results, const std::string& dir, bool no_plots) {
  std::vector<std::string> args{"sh", assembler_path(), results, dir};
  if (no_plots) args.push_back("--no-plots");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "sh", nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// A section of the report: `lesson` run with the section's arguments, parsed as the user's would
// be; a profiled section says why it was skipped where ncu or its counters are not usable here.
chapter::Section report_section(const Lesson& lesson, const ReportSection& section, bool quick) {
  return {section.key, section.title, [&lesson, &section, quick] {
            CLI::App app;
            const LessonCommand command = parse_lesson(lesson, app, quick ? section.quick_args : section.args);
            if (!section.profiled) {
              const harness::RunOutcome outcome = command.timed_run();
              return chapter::section_entry(outcome.report, outcome.gpu_ran, outcome.check_failed);
            }
            try {
              const harness::RunOutcome p = profile_lesson_report(command.profile(), NcuCliOptions{});
              return chapter::section_entry(p.report, p.gpu_ran, p.check_failed);
            } catch (const harness::RunStopped& f) {
              return chapter::skipped_entry(f.what());
            }
          },
          lesson.name, section.profiled};
}

// Where a section's tables go as CSV, relative to the report's directory.
std::string table_csv_path(const std::string& key) { return "tables/" + key + ".csv"; }

// Writes each section's CSV to DIR/tables/KEY.csv and puts that path in its entry in place of the
// text: results.json keeps the tables as JSON, and the CSV sits next to the report.
void write_section_csvs(nlohmann::json& doc, const std::filesystem::path& dir) {
  for (auto& entry : doc["lessons"]) {
    if (!entry.contains("csv") || !entry["csv"].is_string()) continue;
    const std::string path = table_csv_path(entry["key"].get<std::string>());
    report::write_output((dir / path).string(), entry["csv"].get<std::string>());
    entry["csv"] = path;
  }
}

// Every lesson's sections in the chapter's order, the profiled ones (which need ncu) last.
std::vector<chapter::Section> report_sections(bool quick) {
  std::vector<chapter::Section> sections;
  for (bool profiled : {false, true}) {
    for (const Lesson& lesson : lessons()) {
      for (const ReportSection& section : lesson.sections) {
        if (section.profiled == profiled) sections.push_back(report_section(lesson, section, quick));
      }
    }
  }
  return sections;
}

}  // namespace

Command add_report_command(CLI::App& app, ReportCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "report", "the whole chapter on this machine: every lesson, into DIR/report.md, report.html, results.json, figures and tables (CSV)");
  sub->add_option("--out", o.out_dir, "output directory (created if missing)")->capture_default_str();
  sub->add_flag("--quick", o.quick, "smaller sizes and fewer repetitions");
  sub->add_flag("--no-plots", o.no_plots, "skip the figures (no matplotlib needed)");
  return {sub, [&o]() {
            namespace fs = std::filesystem;
            std::error_code ec;
            fs::create_directories(o.out_dir, ec);
            if (ec || !fs::is_directory(o.out_dir)) {
              throw std::invalid_argument("cannot create the output directory '" + o.out_dir + "': " + ec.message());
            }
            fs::create_directories(fs::path(o.out_dir) / "tables", ec);
            const std::vector<chapter::Section> sections = report_sections(o.quick);
            // Every file the report writes is checked now, so an unwritable directory fails before
            // the lessons run (minutes on a GPU), not after them.
            std::vector<std::string> outputs{"results.json", "report.md", "report.html"};
            for (const chapter::Section& s : sections) outputs.push_back(table_csv_path(s.key));
            for (const std::string& name : outputs) {
              if (const auto problem = report::output_problem((fs::path(o.out_dir) / name).string())) {
                throw std::invalid_argument(*problem);
              }
            }
            nlohmann::json doc = chapter::run_sections(
                sections, [](const std::string& line) { std::cerr << "warpfold report " << line << "\n"; });
            write_section_csvs(doc, o.out_dir);
            // The report's headline: each claim of the chapter judged on the sections just run.
            doc["claims"] = report::to_json(lab::book::claims_table(doc, lab::book::numbers()));
            const std::string results = (fs::path(o.out_dir) / "results.json").string();
            report::write_output(results, doc.dump(1) + "\n");
            std::cerr << "warpfold report: raw numbers in " << results << "\n";
            const int rc = run_assembler(results, o.out_dir, o.no_plots);
            if (rc != 0) {
              std::cerr << "warpfold report: could not assemble report.md/report.html from " << results
                        << (rc < 0 ? " (sh could not be started)" : " (assembler exit " + std::to_string(rc) + ")")
                        << "; install python3 and python3-matplotlib, or pass --no-plots\n";
              return int(kExitRuntimeError);
            }
            std::cerr << "warpfold report: " << (fs::path(o.out_dir) / "report.md").string() << " and report.html written\n";
            bool failed = false, wrong = false, cpu_only = false;
            for (const auto& l : doc["lessons"]) {
              failed |= l["status"] == "failed";
              wrong |= l["status"] == "wrong";
              cpu_only |= l["status"] == "cpu-only";
            }
            if (failed) return int(kExitRuntimeError);
            if (wrong) return int(kExitCheckFailed);
            if (cpu_only) {
              std::cerr << "warpfold report: no CUDA device: the GPU sections need one; the CPU sections were written\n";
              return int(kExitNoDevice);
            }
            return int(kExitOk);
          }};
}

}  // namespace warpfold::cli
