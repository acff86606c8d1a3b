#pragma once
// `warpfold report`: the whole chapter measured on this machine. Every lesson runs with sensible
// defaults; each one's tables (JSON) and Markdown go into DIR/results.json, and a failure in one
// lesson is recorded in its own entry while the others still run. scripts/report/assemble_report.py
// turns results.json into DIR/report.md, DIR/report.html and the figures.

#include "report/table.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace warpfold::chapter {

struct ChapterOptions {
  bool quick = false;  // smaller sizes and fewer repetitions (for smoke tests)
};

// One lesson: its key in results.json, a title, and how to run it.
struct Lesson {
  std::string key;
  std::string title;
  std::function<nlohmann::json()> run;  // returns the lesson's entry (see run_lessons)
};

std::vector<Lesson> chapter_lessons(const ChapterOptions& options);

// A lesson's entry from its report: "report" (the JSON rendering), "markdown", "gpu_ran",
// "check_failed" and "status".
nlohmann::json lesson_entry(const report::Report& report, bool gpu_ran, bool check_failed);

// The entry of a lesson that could not run here (a missing tool, say): status "skipped".
nlohmann::json skipped_entry(const std::string& reason);

// Runs every lesson, reporting progress through `progress` ("[3/8] divergence: ok in 4.1 s"),
// and returns results.json's document: {"meta": {...}, "lessons": [{"key", "title", "status",
// "error", "seconds", "gpu_ran", "check_failed", "report", "markdown"}, ...]}. status is "ok",
// "cpu-only" (no device: the CPU part only), "wrong" (a check failed), "skipped" (could not run
// here: the reason is in "error") or "failed" (an exception: its message is in "error").
nlohmann::json run_lessons(const std::vector<Lesson>& lessons, const std::function<void(const std::string&)>& progress);

}  // namespace warpfold::chapter
