#pragma once
// What a kernel's machine code does, counted from its SASS: the instructions that explain the
// book's metrics. Static counts (each instruction once, however often a loop runs it).

#include "profile/sass_listing.hpp"
#include "report/table.hpp"

#include <map>
#include <string>
#include <vector>

namespace warpfold::profile {

struct SassSummary {
  size_t instructions = 0;              // padding (NOP, the final self-branch) not counted
  std::map<int, size_t> global_loads;   // LDG, by access width in bits
  std::map<int, size_t> global_stores;  // STG, by access width in bits
  size_t strong_global = 0;   // LDG/STG .STRONG: what `volatile` compiles to, never cached in L1
  size_t shared_loads = 0;    // LDS
  size_t shared_stores = 0;   // STS
  size_t barriers = 0;        // BAR (__syncthreads)
  size_t warp_syncs = 0;      // WARPSYNC (__syncwarp)
  size_t shuffles = 0;        // SHFL
  size_t warp_reductions = 0; // REDUX (__reduce_*_sync)
  size_t atomics = 0;         // ATOM, ATOMG, ATOMS, RED
  size_t local_accesses = 0;  // LDL, STL: register spills or local arrays
  size_t generic_accesses = 0;  // LD, ST: an address space known only at run time (-G code uses them)
  size_t predicated = 0;      // guarded by a predicate (@P0, @!P1, @UP0), @PT not counted
  size_t branches = 0;        // BRA, BRX, JMP, JMX
};

SassSummary summarize(const SassFunction& function);

// The width of a global access from its opcode: LDG.E → 32, LDG.E.64 → 64, LDG.E.128 → 128,
// LDG.E.U8 → 8, LDG.E.S16 → 16.
int access_width_bits(const std::string& opcode);

// For each run of 128-bit global loads (LDG ... .128), in code order: how many go out before the
// first instruction that reads a register one of them writes. [4, 4, ...] when each tile's four
// loads are in flight together; [2, 1, 1, ...] when ptxas folds between them, so that a thread
// waits for three memory round trips in turn where one would do (warpfold::reduce's kernel,
// docs/design.md#t9). Static, like the counts above.
std::vector<unsigned> wide_load_batches(const SassFunction& function);

// "9 × 32-bit, 2 × 128-bit"; "-" for none.
std::string describe_widths(const std::map<int, size_t>& by_width);

// One row per function: kernel, arch, instructions, the counts above.
report::Table sass_summary_table(const std::vector<SassFunction>& functions);

}  // namespace warpfold::profile
