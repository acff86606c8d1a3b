#include "profile/sass_listing.hpp"

#include "profile/kernel_names.hpp"
#include "profile/text_lines.hpp"

#include <cctype>
#include <cstdlib>

namespace warpfold::profile {
namespace {

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "/*0140*/   LDG.E R0, desc[UR6][R4.64] ;  /* 0x... */" → the instruction, or false for any other line.
bool parse_instruction(std::string_view line, SassInstruction& out) {
  line = trim(line);
  if (line.substr(0, 2) != "/*") return false;
  const size_t close = line.find("*/");
  if (close == std::string_view::npos || !is_hex(line.substr(2, close - 2))) return false;
  out.address = unsigned(std::strtoul(std::string(line.substr(2, close - 2)).c_str(), nullptr, 16));
  std::string_view rest = line.substr(close + 2);
  const size_t semicolon = rest.find(';');
  if (semicolon == std::string_view::npos) return false;
  rest = trim(rest.substr(0, semicolon));
  if (rest.empty()) return false;
  out.text = std::string(rest);
  out.guard.clear();
  if (rest.front() == '@') {
    const size_t space = rest.find(' ');
    out.guard = std::string(rest.substr(0, space));
    rest = space == std::string_view::npos ? std::string_view() : trim(rest.substr(space));
  }
  out.opcode = std::string(rest.substr(0, rest.find(' ')));
  return !out.opcode.empty();
}

// "x-_ZN...j.sm_90.elf.bin" → "_ZN...j": the object's tag before the last '-' and the suffix go.
std::string name_in_section(std::string_view entry) {
  entry = trim(entry);
  const size_t elf = entry.rfind(".elf.bin");
  if (elf != std::string_view::npos) entry = entry.substr(0, elf);
  const size_t sm = entry.rfind(".sm_");
  if (sm != std::string_view::npos) entry = entry.substr(0, sm);
  const size_t dash = entry.rfind('-');  // mangled names never hold a '-'
  if (dash != std::string_view::npos) entry = entry.substr(dash + 1);
  return std::string(entry);
}

}  // namespace

std::vector<std::string> parse_function_list(std::string_view list_text) {
  std::vector<std::string> names;
  for (std::string_view line : text_lines(list_text)) {
    if (line.find("text section") == std::string_view::npos) continue;
    const size_t colon = line.find(" : ");
    if (colon == std::string_view::npos) continue;
    std::string name = name_in_section(line.substr(colon + 3));
    if (!name.empty()) names.push_back(std::move(name));
  }
  return names;
}

std::vector<SassFunction> parse_sass_dump(std::string_view dump) {
  std::vector<SassFunction> functions;
  std::string arch;
  bool inside = false;
  for (std::string_view line : text_lines(dump)) {
    const std::string_view t = trim(line);
    if (t.rfind("code for ", 0) == 0) {
      arch = std::string(trim(t.substr(9)));
      inside = false;
      continue;
    }
    if (t.rfind("Function : ", 0) == 0) {
      SassFunction f;
      f.mangled = std::string(trim(t.substr(11)));
      f.name = demangle(f.mangled).value_or(f.mangled);
      f.arch = arch;
      functions.push_back(std::move(f));
      inside = true;
      continue;
    }
    if (t.rfind("..........", 0) == 0) {  // the end of a function's listing
      inside = false;
      continue;
    }
    SassInstruction ins;
    if (inside && parse_instruction(line, ins)) functions.back().instructions.push_back(std::move(ins));
  }
  return functions;
}

bool is_padding(const SassInstruction& i) {
  if (i.opcode == "NOP") return true;
  if (i.opcode != "BRA" || !i.guard.empty()) return false;
  const size_t at = i.text.find("0x");
  return at != std::string::npos && std::strtoul(i.text.c_str() + at, nullptr, 16) == i.address;
}

}  // namespace warpfold::profile
