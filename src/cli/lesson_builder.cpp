#include "cli/lesson_builder.hpp"

#include <stdexcept>

namespace warpfold::cli {

std::vector<std::string> repeated_arguments(const std::string& lesson, const std::vector<const CLI::Option*>& options) {
  std::vector<std::string> args{lesson};
  for (const CLI::Option* option : options) {
    if (option->count() == 0) continue;
    if (option->get_expected_max() == 0) {  // a flag
      args.push_back(option->get_name());
      continue;
    }
    for (const std::string& value : option->results()) args.insert(args.end(), {option->get_name(), value});
  }
  return args;
}

const Lesson& find_lesson(const std::string& name) {
  for (const Lesson& l : lessons()) {
    if (l.name == name) return l;
  }
  throw std::logic_error("no lesson is called '" + name + "'");
}

LessonCommand parse_lesson(const Lesson& lesson, CLI::App& app, const std::vector<std::string>& args) {
  LessonCommand command = lesson.add(app);
  std::vector<std::string> line{lesson.name};
  line.insert(line.end(), args.begin(), args.end());
  parse_arguments(app, line);
  return command;
}

}  // namespace warpfold::cli
