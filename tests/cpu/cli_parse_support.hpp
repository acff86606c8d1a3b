#pragma once
// Parses `warpfold SUBCOMMAND ARGS...` in-process for one registered subcommand, as main() would.

#include "cli/command.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace warpfold::testing {

template <class Options>
struct ParsedCommand {
  std::unique_ptr<CLI::App> app = std::make_unique<CLI::App>("test");
  Options opts;
  cli::Command cmd{};
};

// Throws what CLI11 throws for bad arguments.
template <class Options>
std::unique_ptr<ParsedCommand<Options>> parse_command(cli::Command (*add)(CLI::App&, Options&), const std::string& name,
                                                      std::vector<std::string> args) {
  auto p = std::make_unique<ParsedCommand<Options>>();
  p->cmd = add(*p->app, p->opts);
  args.insert(args.begin(), name);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  p->app->parse(args);
  return p;
}

// The parse error's message, or "" when the arguments were accepted.
template <class Options>
std::string parse_command_error(cli::Command (*add)(CLI::App&, Options&), const std::string& name,
                                std::vector<std::string> args) {
  try {
    parse_command(add, name, std::move(args));
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace warpfold::testing
