#pragma once
// `warpfold nested` and `warpfold nested hello`: their options (the lesson is declared in
// lessons.cpp).

#include "cli/command.hpp"
#include "lab/nested/nested_plan.hpp"

namespace warpfold::cli {

struct NestedCommandOptions {
  lab::NestedOptions lab;
  lab::NestedHelloOptions hello;
  CLI::App* hello_command = nullptr;  // set on registration: `nested hello`
};

// Registers the nested reduction's options (the seed's table) and the subcommand `hello`
// (nestedHelloWorld) with its own.
void add_nested_options(CLI::App& sub, NestedCommandOptions& opts);

// `nested hello`: prints the kernel's lines; kExitNoDevice or kExitCheckFailed (launches or lines
// not as the formulas say) with one line on stderr.
int run_nested_hello_command(const NestedCommandOptions& opts);

}  // namespace warpfold::cli
