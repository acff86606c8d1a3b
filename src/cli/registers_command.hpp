#pragma once
// `warpfold registers`: its options (the lesson is declared in lessons.cpp).

#include "cli/command.hpp"
#include "lab/registers/register_run.hpp"

namespace warpfold::cli {

struct RegistersCommandOptions {
  lab::RegistersOptions lab;
};

void add_registers_options(CLI::App& sub, RegistersCommandOptions& opts);

}  // namespace warpfold::cli
