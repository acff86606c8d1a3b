#pragma once
// `warpfold report`'s runner: the chapter's sections run one after another into one document,
// results.json. Each section's tables (JSON) and Markdown go into its entry, and a failure in one
// section is recorded in its own entry while the others still run. scripts/report/
// assemble_report.py turns results.json into report.md, report.html and the figures. Which
// sections there are is the lessons' declaration (src/cli/lessons.cpp).

#include "report/table.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace warpfold::chapter {

// One section: its key in results.json, a title, how to run it, and the lesson it runs (with
// whether under ncu), so that a lesson's sections can be read together.
struct Section {
  std::string key;
  std::string title;
  std::function<nlohmann::json()> run;  // returns the section's entry (see run_sections)
  std::string lesson;
  bool profiled = false;
};

// A section's entry from its report: "report" (the JSON rendering), "markdown", "csv" (the CSV
// rendering, meta comment lines first), "gpu_ran", "check_failed" and "status".
nlohmann::json section_entry(const report::Report& report, bool gpu_ran, bool check_failed);

// The entry of a section that could not run here (a missing tool, say): status "skipped".
nlohmann::json skipped_entry(const std::string& reason);

// Runs every section, reporting progress through `progress` ("[3/8] divergence: ok in 4.1 s"),
// and returns results.json's document: {"meta": {...}, "lessons": [{"key", "title", "lesson",
// "profiled", "status", "error", "seconds", "gpu_ran", "check_failed", "report", "markdown",
// "csv"}, ...]}. status is "ok",
// "cpu-only" (no device: the CPU part only), "wrong" (a check failed), "skipped" (could not run
// here: the reason is in "error") or "failed" (an exception: its message is in "error").
nlohmann::json run_sections(const std::vector<Section>& sections,
                            const std::function<void(const std::string&)>& progress);

}  // namespace warpfold::chapter
