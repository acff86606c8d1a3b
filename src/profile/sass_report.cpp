#include "profile/sass_report.hpp"

#include "profile/kernel_names.hpp"
#include "profile/sass_summary.hpp"

#include <cstdio>

namespace warpfold::profile {
namespace {

std::string instruction_line(const SassInstruction& i) {
  char address[16];
  std::snprintf(address, sizeof address, "/*%04x*/", i.address);
  return std::string(address) + "  " + i.text;  // the text keeps its guard (@P0 ...)
}

}  // namespace

report::Report sass_report(const std::vector<SassFunction>& functions, const std::string& query,
                           const std::string& binary, const std::string& cuobjdump, bool listing) {
  report::Report r;
  r.preamble.push_back("warpfold profile --sass " + query + ": " + std::to_string(functions.size()) +
                       " kernel" + (functions.size() == 1 ? "" : "s") + " in " + binary + " (" + cuobjdump + ")");
  r.meta["command"] = "profile --sass";
  r.meta["query"] = query;
  r.meta["binary"] = binary;
  r.meta["cuobjdump"] = cuobjdump;
  if (listing) {
    nlohmann::json sass = nlohmann::json::object();
    for (const SassFunction& f : functions) {
      nlohmann::json lines = nlohmann::json::array();
      for (const SassInstruction& i : f.instructions) {
        if (!is_padding(i)) lines.push_back(instruction_line(i));
      }
      sass[qualified_name(f.name)] = std::move(lines);
    }
    r.meta["sass"] = std::move(sass);
  }
  r.tables.push_back(sass_summary_table(functions));
  return r;
}

std::string sass_listing_text(const std::vector<SassFunction>& functions, bool markdown) {
  std::string out;
  for (const SassFunction& f : functions) {
    // In Markdown the name goes in backticks: its template arguments (<512u>) would read as HTML.
    out += markdown ? "### `" + qualified_name(f.name) + "` (" + f.arch + ")\n"
                    : "== " + qualified_name(f.name) + " (" + f.arch + ")\n";
    out += markdown ? "\n```\n" : "";
    for (const SassInstruction& i : f.instructions) {
      if (!is_padding(i)) out += instruction_line(i) + "\n";
    }
    out += markdown ? "```\n\n" : "\n";
  }
  return out;
}

}  // namespace warpfold::profile
