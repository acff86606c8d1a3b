#pragma once
// `warpfold info`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/device_query/info_run.hpp"

namespace warpfold::cli {

struct InfoCommandOptions {
  lab::InfoOptions lab;
};

void add_info_options(CLI::App& sub, InfoCommandOptions& opts);

}  // namespace warpfold::cli
