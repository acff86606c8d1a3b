#pragma once
// `warpfold profile --sass KERNEL`: the machine code of the matching kernels and its summary.

#include "profile/sass_listing.hpp"
#include "report/table.hpp"

#include <string>
#include <vector>

namespace warpfold::profile {

// The summary table (sass_summary.hpp), with the binary and the tool in the preamble and meta;
// with `listing`, every function's instructions go into meta.sass (for --format json).
report::Report sass_report(const std::vector<SassFunction>& functions, const std::string& query,
                           const std::string& binary, const std::string& cuobjdump, bool listing);

// The listing as text: a heading per function, then its instructions (padding left out), one per
// line; in Markdown each listing is a fenced block.
std::string sass_listing_text(const std::vector<SassFunction>& functions, bool markdown);

}  // namespace warpfold::profile
