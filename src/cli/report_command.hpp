#pragma once
#include "chapter/chapter_report.hpp"
#include "cli/command.hpp"

namespace warpfold::cli {

struct ReportCommandOptions {
  std::string out_dir = "warpfold-report";
  chapter::ChapterOptions chapter;
  bool no_plots = false;
};

// Registers `warpfold report` on `app`.
Command add_report_command(CLI::App& app, ReportCommandOptions& opts);

}  // namespace warpfold::cli
