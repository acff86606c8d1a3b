#pragma once
#include "cli/command.hpp"

#include <string>

namespace warpfold::cli {

struct ReportCommandOptions {
  std::string out_dir = "warpfold-report";
  bool quick = false;  // each section's quick arguments (ReportSection): smaller sizes, fewer repetitions
  bool no_plots = false;
};

// Registers `warpfold report` on `app`.
Command add_report_command(CLI::App& app, ReportCommandOptions& opts);

}  // namespace warpfold::cli
