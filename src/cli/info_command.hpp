#pragma once
#include "cli/command.hpp"
#include "lab/device_query/info_run.hpp"

namespace warpfold::cli {

struct InfoCommandOptions {
  lab::InfoOptions lab;
  OutputOptions output;
};

// Registers `warpfold info` on `app`; `opts` receives the parsed values.
Command add_info_command(CLI::App& app, InfoCommandOptions& opts);

}  // namespace warpfold::cli
