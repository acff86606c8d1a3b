#include "profile/kernel_names.hpp"

#include "profile/text_lines.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace warpfold::profile {
namespace {

// Index of the '<' that opens the template argument list ending at `close` (a '>'), or npos.
size_t matching_open(std::string_view s, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == '>') ++depth;
    if (s[i] == '<' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// A scope in a demangled name that holds a '(' and a space but is neither a parameter list nor a
// return type's end: kernels in unnamed namespaces ("ns::(anonymous namespace)::kernel(...)").
constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

// The length of the unnamed-namespace scope starting at s[i], or 0.
size_t anonymous_scope_at(std::string_view s, size_t i) {
  return s.substr(i, kAnonymousNamespace.size()) == kAnonymousNamespace ? kAnonymousNamespace.size() : 0;
}

// Calls visit(i) for each index of `s` outside template arguments (an unnamed namespace's scope
// skipped whole), in order, until it returns true; returns that index, or npos.
template <class Visit>
size_t find_at_top_level(std::string_view s, Visit visit) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (const size_t skip = anonymous_scope_at(s, i)) {
      i += skip - 1;
      continue;
    }
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (depth == 0 && visit(i)) return i;
  }
  return std::string_view::npos;
}

// The parameter list's '(' : the first '(' outside template arguments.
size_t parameter_list(std::string_view s) {
  return find_at_top_level(s, [&](size_t i) { return s[i] == '('; });
}

std::string_view strip_trailing_digits(std::string_view s) {
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return std::nullopt;
  return std::string(out.get());
}

std::string qualified_name(std::string_view demangled) {
  std::string_view s = trim(demangled);
  const size_t paren = parameter_list(s);
  if (paren != std::string_view::npos) s = trim(s.substr(0, paren));
  // A return type ("void ") stands before the name of a template's instantiation: drop what
  // precedes the last space outside template arguments.
  size_t start = 0;
  find_at_top_level(s, [&](size_t i) {
    if (s[i] == ' ') start = i + 1;
    return false;
  });
  return std::string(s.substr(start));
}

std::string base_identifier(std::string_view name) {
  std::string q = qualified_name(name);
  std::string_view s = q;
  if (!s.empty() && s.back() == '>') {
    const size_t open = matching_open(s, s.size() - 1);
    if (open != std::string_view::npos) s = s.substr(0, open);
  }
  const size_t scope = s.rfind("::");
  if (scope != std::string_view::npos) s = s.substr(scope + 2);
  return std::string(s);
}

std::string without_unsigned_suffixes(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const bool after_digit = i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]));
    const bool ends_number = i + 1 == name.size() || name[i + 1] == '>' || name[i + 1] == ',';
    if ((name[i] == 'u' || name[i] == 'U') && after_digit && ends_number) continue;
    out += name[i];
  }
  return out;
}

bool names_same_kernel(std::string_view reported, std::string_view expected) {
  const std::string got = base_identifier(reported);
  const std::string want = base_identifier(expected);
  if (got.empty()) return false;
  return got == want || got == strip_trailing_digits(want);
}

}  // namespace warpfold::profile
