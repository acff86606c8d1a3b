#include "profile/sass_summary.hpp"

#include "profile/kernel_names.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace warpfold::profile {
namespace {

using nlohmann::json;

// "LDG.E.128" at '.' → {"LDG", "E", "128"}; an operand list at ','.
std::vector<std::string> split_at(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

std::vector<std::string> split_dots(const std::string& opcode) { return split_at(opcode, '.'); }

bool has_modifier(const std::vector<std::string>& parts, const char* modifier) {
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == modifier) return true;
  }
  return false;
}

std::string others(const SassSummary& s) {
  std::string text;
  auto add = [&](size_t n, const char* what) {
    if (n == 0) return;
    if (!text.empty()) text += ", ";
    text += std::to_string(n) + " " + what;
  };
  add(s.strong_global, "STRONG (volatile) global");
  add(s.warp_syncs, "WARPSYNC");
  add(s.warp_reductions, "REDUX");
  add(s.atomics, "atomic");
  add(s.local_accesses, "local (LDL/STL)");
  add(s.generic_accesses, "generic (LD/ST)");
  return text.empty() ? "-" : text;
}

// The R registers an operand names: "R8" → {8}; a 64-bit pair "R14.64" → {14, 15}; ".reuse"
// ignored; RZ, uniform (UR) and predicate registers → none.
void add_registers(const std::string& operand, std::set<unsigned>& out) {
  for (size_t at = 0; (at = operand.find('R', at)) != std::string::npos; ++at) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(operand[at - 1])) || operand[at - 1] == '_')) continue;
    size_t end = at + 1;
    while (end < operand.size() && std::isdigit(static_cast<unsigned char>(operand[end]))) ++end;
    if (end == at + 1) continue;  // RZ, or a word that merely starts with R
    const unsigned reg = unsigned(std::stoul(operand.substr(at + 1, end - at - 1)));
    out.insert(reg);
    if (operand.compare(end, 3, ".64") == 0) out.insert(reg + 1);
  }
}

// The instruction's operands, split at commas: "VIMNMX3 R8, R8, R9, R10, !PT" → {"R8", " R8", ...}.
std::vector<std::string> operands(const SassInstruction& i) {
  const size_t at = i.text.find(i.opcode);
  if (at == std::string::npos) return {};
  const std::string rest = i.text.substr(at + i.opcode.size());
  return split_at(rest.substr(0, rest.find(';')), ',');
}

}  // namespace

std::vector<unsigned> wide_load_batches(const SassFunction& f) {
  std::vector<unsigned> batches;
  std::set<unsigned> pending;  // registers written by the loads of the open run
  unsigned run = 0;
  for (const SassInstruction& i : f.instructions) {
    if (is_padding(i)) continue;
    const std::string op = split_dots(i.opcode).front();
    const bool wide_load = op == "LDG" && access_width_bits(i.opcode) == 128;
    if (!wide_load && run == 0) continue;  // nothing in flight to wait for
    const std::vector<std::string> ops = operands(i);
    if (wide_load && !ops.empty()) {
      std::set<unsigned> first;
      add_registers(ops.front(), first);
      if (first.size() == 1) {
        for (unsigned k = 0; k < 4; ++k) pending.insert(*first.begin() + k);
        ++run;
        continue;
      }
    }
    if (run == 0) continue;
    // Registers read: every operand but the first (the destination), and all of a store's.
    std::set<unsigned> read;
    const bool is_store = op.rfind("ST", 0) == 0 || op == "RED";
    for (size_t k = is_store ? 0 : 1; k < ops.size(); ++k) add_registers(ops[k], read);
    const bool uses = std::any_of(read.begin(), read.end(), [&](unsigned r) { return pending.count(r) != 0; });
    if (uses) {
      batches.push_back(run);
      run = 0;
      pending.clear();
    }
  }
  if (run > 0) batches.push_back(run);
  return batches;
}

int access_width_bits(const std::string& opcode) {
  const std::vector<std::string> parts = split_dots(opcode);
  if (has_modifier(parts, "128")) return 128;
  if (has_modifier(parts, "64")) return 64;
  if (has_modifier(parts, "U8") || has_modifier(parts, "S8")) return 8;
  if (has_modifier(parts, "U16") || has_modifier(parts, "S16")) return 16;
  return 32;
}

SassSummary summarize(const SassFunction& f) {
  SassSummary s;
  for (const SassInstruction& i : f.instructions) {
    if (is_padding(i)) continue;
    ++s.instructions;
    if (!i.guard.empty() && i.guard != "@PT") ++s.predicated;
    const std::vector<std::string> parts = split_dots(i.opcode);
    const std::string& op = parts.front();
    if (op == "LDG" || op == "STG") {
      (op == "LDG" ? s.global_loads : s.global_stores)[access_width_bits(i.opcode)]++;
      if (has_modifier(parts, "STRONG")) ++s.strong_global;
    } else if (op == "LDS") {
      ++s.shared_loads;
    } else if (op == "STS") {
      ++s.shared_stores;
    } else if (op == "BAR") {
      ++s.barriers;
    } else if (op == "WARPSYNC") {
      ++s.warp_syncs;
    } else if (op == "SHFL") {
      ++s.shuffles;
    } else if (op == "REDUX") {
      ++s.warp_reductions;
    } else if (op == "ATOM" || op == "ATOMG" || op == "ATOMS" || op == "RED") {
      ++s.atomics;
    } else if (op == "LDL" || op == "STL") {
      ++s.local_accesses;
    } else if (op == "LD" || op == "ST") {
      ++s.generic_accesses;
    } else if (op == "BRA" || op == "BRX" || op == "JMP" || op == "JMX") {
      ++s.branches;
    }
  }
  return s;
}

std::string describe_widths(const std::map<int, size_t>& by_width) {
  std::string text;
  for (const auto& [bits, count] : by_width) {
    if (!text.empty()) text += ", ";
    text += std::to_string(count) + " × " + std::to_string(bits) + "-bit";
  }
  return text.empty() ? "-" : text;
}

report::Table sass_summary_table(const std::vector<SassFunction>& functions) {
  report::Table t;
  t.title = "SASS summary (static counts: each instruction once, however often it runs)";
  t.columns = {{"kernel", "kernel"},           {"arch", "arch"},
               {"instructions", "instructions"}, {"global_loads", "global loads (LDG)"},
               {"global_stores", "global stores (STG)"}, {"shared_loads", "LDS"},
               {"shared_stores", "STS"},         {"barriers", "BAR"},
               {"shuffles", "SHFL"},             {"predicated", "predicated"},
               {"branches", "branches"},         {"other", "other"}};
  for (const SassFunction& f : functions) {
    const SassSummary s = summarize(f);
    t.add_row({qualified_name(f.name), f.arch, s.instructions, describe_widths(s.global_loads),
               describe_widths(s.global_stores), s.shared_loads, s.shared_stores, s.barriers, s.shuffles,
               s.predicated, s.branches, others(s)});
  }
  t.notes.push_back("predicated: instructions guarded by a predicate register (@P0, @!P1): the compiler's "
                    "alternative to a branch; branches: BRA/BRX/JMP/JMX; BAR: __syncthreads()");
  t.notes.push_back("STRONG global accesses are what `volatile` pointers to global memory compile to: each one "
                    "goes to L2 (no L1 caching) and the next one waits for it");
  return t;
}

}  // namespace warpfold::profile
