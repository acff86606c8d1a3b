#pragma once
#include "cli/command.hpp"
#include "lab/nested/nested_plan.hpp"

namespace warpfold::cli {

struct NestedCommandOptions {
  lab::NestedOptions lab;
  lab::NestedHelloOptions hello;
  uint64_t seed = 0;
  OutputOptions output;
};

// Registers `warpfold nested` (the seed's table) and `warpfold nested hello` (nestedHelloWorld)
// on `app`; `opts` receives the parsed values.
Command add_nested_command(CLI::App& app, NestedCommandOptions& opts);

}  // namespace warpfold::cli
