#pragma once
#include "cli/command.hpp"
#include "lab/nested/nested_plan.hpp"

namespace warpfold::cli {

struct NestedCommandOptions {
  lab::NestedOptions lab;
  lab::NestedHelloOptions hello;
  uint64_t seed = 0;
  OutputOptions output;
  const CLI::Option* seed_option = nullptr;  // set on registration: whether --seed was given
  CLI::App* hello_command = nullptr;         // set on registration: `nested hello`
  std::string profile_pass;                  // hidden --profile-pass FILE (see profile_pass_option.hpp)
};

// Registers `warpfold nested` (the seed's table) and `warpfold nested hello` (nestedHelloWorld)
// on `app`; `opts` receives the parsed values.
Command add_nested_command(CLI::App& app, NestedCommandOptions& opts);

// The lab's options of the table as parsed: seed applied.
lab::NestedOptions resolved_nested_options(const NestedCommandOptions& opts);

}  // namespace warpfold::cli
