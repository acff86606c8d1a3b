#pragma once
// Parses `warpfold SUBCOMMAND ARGS...` in-process, for the tests of each subcommand's arguments:
// a lesson's command as the registry (cli/lessons.cpp) declares it, or another command by its
// registration function.

#include "cli/command.hpp"
#include "cli/decimal_check.hpp"
#include "cli/lesson_builder.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace warpfold::testing {

template <class Options>
struct ParsedCommand {
  std::unique_ptr<CLI::App> app = std::make_unique<CLI::App>("test");
  Options opts;
  cli::Command cmd{};
};

// `add` registers the subcommand (e.g. cli::add_ladder_command); throws what CLI11 throws.
template <class Options, class Add>
std::unique_ptr<ParsedCommand<Options>> parse_command(Add add, const std::string& name, std::vector<std::string> args) {
  auto p = std::make_unique<ParsedCommand<Options>>();
  p->cmd = add(*p->app, p->opts);
  cli::require_decimal_integers(*p->app);  // as main() does
  args.insert(args.begin(), name);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  p->app->parse(args);
  return p;
}

// The parse error's message, or "" when the arguments parse.
template <class Options, class Add>
std::string parse_command_error(Add add, const std::string& name, std::vector<std::string> args) {
  try {
    parse_command<Options>(add, name, std::move(args));
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

// The same for a registration function, with the options type deduced from it.
template <class Options>
std::unique_ptr<ParsedCommand<Options>> parse_command(cli::Command (*add)(CLI::App&, Options&), const std::string& name,
                                                      std::vector<std::string> args) {
  using Add = cli::Command (*)(CLI::App&, Options&);
  return parse_command<Options, Add>(add, name, std::move(args));  // the general template above
}

template <class Options>
std::string parse_command_error(cli::Command (*add)(CLI::App&, Options&), const std::string& name,
                                std::vector<std::string> args) {
  using Add = cli::Command (*)(CLI::App&, Options&);
  return parse_command_error<Options, Add>(add, name, std::move(args));
}

// A lesson's command, parsed: `opts` are its options (the lesson's own, output, ...) as parsed.
template <class Options>
struct ParsedLesson {
  std::unique_ptr<CLI::App> app;
  cli::LessonCommand lesson;
  cli::Command cmd;
  cli::LessonArgs<Options>& opts;
};

// `warpfold LESSON ARGS...`, the lesson registered as main() registers it; throws what CLI11 throws.
template <class Options>
std::unique_ptr<ParsedLesson<Options>> parse_lesson(const std::string& lesson, std::vector<std::string> args) {
  auto app = std::make_unique<CLI::App>("test");
  cli::LessonCommand command = cli::parse_lesson(cli::find_lesson(lesson), *app, args);
  cli::LessonArgs<Options>& opts = cli::parsed_args<Options>(command);
  return std::unique_ptr<ParsedLesson<Options>>(
      new ParsedLesson<Options>{std::move(app), command, command.command(), opts});
}

// The parse error's message, or "" when the arguments parse.
inline std::string parse_lesson_error(const std::string& lesson, std::vector<std::string> args) {
  try {
    CLI::App app("test");
    cli::parse_lesson(cli::find_lesson(lesson), app, args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

// Collects what std::cerr receives while alive.
struct CaptureStderr {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~CaptureStderr() { std::cerr.rdbuf(old); }
};

}  // namespace warpfold::testing
