#include "profile/sass_lookup.hpp"

#include "profile/kernel_names.hpp"
#include "profile/ncu_run.hpp"
#include "harness/run_outcome.hpp"
#include "profile/subprocess.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace warpfold::profile {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool in_variant(const std::string& qualified, const std::string& variant) {
  return variant == "all" || qualified.find("::" + variant + "::") != std::string::npos;
}

// "reduceUnrolling8" against "ns::reduceUnrolling<8>": the number is the template argument.
bool ladder_name_of_template(const std::string& qualified, const std::string& query) {
  size_t digits = query.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(query[digits - 1]))) --digits;
  if (digits == query.size() || digits == 0) return false;
  const std::string stem = query.substr(0, digits), number = query.substr(digits);
  return base_identifier(qualified) == stem && ends_with(qualified, "<" + number + ">");
}

ProcessOptions cuobjdump_options(const std::string& cuobjdump) {
  // cuobjdump runs nvdisasm, which lies beside it in a CUDA installation that is not on PATH.
  ProcessOptions o;
  o.timeout_seconds = 300;
  const std::string dir = cuobjdump.substr(0, cuobjdump.rfind('/'));
  const char* path = std::getenv("PATH");
  o.environment = {{"PATH", dir + (path ? ":" + std::string(path) : std::string())}, {"LC_ALL", "C"}};
  return o;
}

ProcessResult run_cuobjdump(const std::string& cuobjdump, std::vector<std::string> args) {
  args.insert(args.begin(), cuobjdump);
  ProcessResult r = run_process(args, cuobjdump_options(cuobjdump));
  if (!r.started) throw harness::RunStopped(harness::Stop::tool_missing, "cannot run cuobjdump: " + r.start_error);
  if (r.err.find("nvdisasm") != std::string::npos && !r.ok()) {
    throw harness::RunStopped(harness::Stop::tool_missing,
                         "cuobjdump needs nvdisasm, found neither beside it nor on PATH (" + last_lines(r.err, 2) + ")");
  }
  if (r.err.find("does not contain device code") != std::string::npos) {
    throw harness::RunStopped(harness::Stop::bad_request, args.back() + " holds no device code");
  }
  if (!r.ok()) {
    const std::string said = last_lines(r.err, 4);
    throw harness::RunStopped(harness::Stop::failed,
                         "cuobjdump " + r.describe(300) + ": " + (said.empty() ? "it printed no error message" : said));
  }
  return r;
}

}  // namespace

bool kernel_matches(const std::string& mangled, const SassQuery& query) {
  const std::string qualified = without_unsigned_suffixes(qualified_name(demangle(mangled).value_or(mangled)));
  if (!in_variant(qualified, query.variant)) return false;
  if (mangled == query.kernel) return true;
  const std::string q = without_unsigned_suffixes(query.kernel);
  if (q.empty()) return false;
  return qualified == q || ends_with(qualified, "::" + q) || base_identifier(qualified) == q ||
         ladder_name_of_template(qualified, q);
}

std::vector<std::string> matching_kernels(const std::vector<std::string>& functions, const SassQuery& query) {
  std::vector<std::string> out;
  for (const std::string& f : functions) {
    if (kernel_matches(f, query) && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

std::vector<std::string> similar_kernels(const std::vector<std::string>& functions, const std::string& kernel) {
  const std::string want = lower(base_identifier(kernel));
  std::vector<std::string> out;
  for (const std::string& f : functions) {
    const std::string name = qualified_name(demangle(f).value_or(f));
    const std::string id = lower(base_identifier(name));
    const bool similar = !want.empty() && (id.find(want) != std::string::npos || want.find(id) != std::string::npos);
    if (similar && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::vector<SassFunction> load_sass(const std::string& cuobjdump, const std::string& binary, const SassQuery& query) {
  const std::vector<std::string> listed = parse_function_list(run_cuobjdump(cuobjdump, {"--list-text", binary}).out);
  std::vector<SassFunction> found;
  std::vector<std::string> wanted;
  if (listed.empty()) {
    // A listing this parser does not recognise: dump everything (slower) and match on that.
    for (SassFunction& f : parse_sass_dump(run_cuobjdump(cuobjdump, {"--dump-sass", binary}).out)) {
      if (kernel_matches(f.mangled, query)) found.push_back(std::move(f));
    }
  } else {
    wanted = matching_kernels(listed, query);
    if (!wanted.empty()) {
      // cuobjdump looks each --function name up on its own, so past a few names dumping the whole
      // binary and keeping the wanted ones is quicker (docs/design.md's decision record, row P1).
      constexpr size_t kMostNamedFunctions = 8;
      std::vector<std::string> args = {"--dump-sass"};
      if (wanted.size() <= kMostNamedFunctions) {
        std::string list;
        for (const std::string& w : wanted) list += (list.empty() ? "" : ",") + w;
        args.insert(args.end(), {"--function", list});
      }
      args.push_back(binary);
      for (SassFunction& f : parse_sass_dump(run_cuobjdump(cuobjdump, args).out)) {
        if (std::find(wanted.begin(), wanted.end(), f.mangled) != wanted.end()) found.push_back(std::move(f));
      }
    }
  }
  if (found.empty() && !wanted.empty()) {
    throw harness::RunStopped(harness::Stop::failed, "cuobjdump listed " + std::to_string(wanted.size()) +
                                                       " matching kernel(s) in " + binary +
                                                       " but its dump held no SASS for them: " + wanted.front());
  }
  if (found.empty()) {
    std::string message = "no kernel named '" + query.kernel + "'" +
                          (query.variant == "all" ? "" : " (variant " + query.variant + ")") + " in " + binary;
    const std::vector<std::string> near = similar_kernels(listed, query.kernel);
    for (size_t i = 0; i < near.size() && i < 12; ++i) message += (i ? ", " : "; kernels with similar names: ") + near[i];
    throw harness::RunStopped(harness::Stop::bad_request, message);
  }
  return found;
}

}  // namespace warpfold::profile
