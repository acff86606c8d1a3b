#pragma once
// Splitting the tools' text output into lines, shared by the readers of ncu's and cuobjdump's output.

#include <cctype>
#include <string_view>
#include <vector>

namespace warpfold::profile {

// The lines of `text`, without their '\n' or "\r\n"; views into `text`.
inline std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(start, eol - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = eol + 1;
  }
  return out;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace warpfold::profile
