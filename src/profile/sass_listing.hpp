#pragma once
// cuobjdump's text, parsed: the kernels a binary holds (`cuobjdump --list-text`) and the machine
// code of some of them (`cuobjdump --dump-sass`), one instruction per line:
//         /*0140*/                   LDG.E R0, desc[UR6][R4.64] ;        /* 0x... */
//         /*0080*/               @P0 EXIT ;                              /* 0x... */

#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

struct SassInstruction {
  unsigned address = 0;
  std::string guard;   // "@P0", "@!P1", "@!UP0" or "" when the instruction is not predicated
  std::string opcode;  // "LDG.E.128", "BAR.SYNC.DEFER_BLOCKING"
  std::string text;    // the whole instruction as printed, without address and encoding
};

struct SassFunction {
  std::string mangled;  // as cuobjdump names it
  std::string name;     // demangled, or the mangled name when it is not a C++ name
  std::string arch;     // "sm_90"
  std::vector<SassInstruction> instructions;  // as listed, padding included
};

// The mangled names in `cuobjdump --list-text` output ("SASS text section 1 : x-<name>.sm_90.elf.bin").
std::vector<std::string> parse_function_list(std::string_view list_text);

// Every function of a `cuobjdump --dump-sass` output, in order.
std::vector<SassFunction> parse_sass_dump(std::string_view dump);

// The end of a kernel: NOP padding, and the branch to itself that follows its last EXIT.
bool is_padding(const SassInstruction& instruction);

}  // namespace warpfold::profile
