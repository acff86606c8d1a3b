#pragma once
// Finding a kernel's machine code in a binary with cuobjdump (no GPU needed): the kernels are
// listed (`cuobjdump --list-text`, fast), matched against the name asked for, and only those
// dumped (`cuobjdump --dump-sass --function <mangled>,...`).

#include "profile/sass_listing.hpp"

#include <string>
#include <vector>

namespace warpfold::profile {

struct SassQuery {
  std::string kernel;             // see kernel_matches
  std::string variant = "all";    // "book", "fixed" or "all": the ladder's namespaces
};

// Whether the kernel `mangled` answers `query`: its mangled name; its qualified name or a tail of
// it ("book::reduceInterleaved", "reduceCompleteUnroll<512>"); its identifier alone, which takes
// every namespace and instantiation ("reduceInterleaved"); or a ladder name whose trailing number
// is the template argument of the fixed twin ("reduceUnrolling8" finds reduceUnrolling<8>).
bool kernel_matches(const std::string& mangled, const SassQuery& query);

// The kernels of `functions` (mangled names) that answer the query, in their order.
std::vector<std::string> matching_kernels(const std::vector<std::string>& functions, const SassQuery& query);

// Kernels whose identifier contains the query's, ignoring case: the suggestions when none matched.
std::vector<std::string> similar_kernels(const std::vector<std::string>& functions, const std::string& kernel);

// Runs cuobjdump on `binary` and returns the matching kernels' code. Throws harness::RunStopped:
// tool_missing when cuobjdump (or the nvdisasm it runs) cannot be run, bad_request when no kernel
// matches (naming similar ones), failed for any other cuobjdump failure.
std::vector<SassFunction> load_sass(const std::string& cuobjdump, const std::string& binary, const SassQuery& query);

}  // namespace warpfold::profile
