#pragma once
// What every lesson's profile pass shares. A profile pass is what `warpfold profile <lesson>` runs
// under ncu: it launches every kernel of the lesson once, through the same correctness check as
// the timed run (so every profiled launch is also checked), and nothing else: no warm-up, no
// timing, no bandwidth probe. ncu then profiles exactly these launches, in the order the manifest
// records them. The lesson's timed run, in the parent process, gives each row its time and check
// (its *_timed_rows function reads them from the run's table).
//
// Each pass needs a CUDA device (the caller checks first) and throws std::invalid_argument for
// options its lesson rejects.

#include "profile/launch_manifest.hpp"
#include "profile/profile_table.hpp"
#include "report/table.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::lab {

// "reduceInterleaved (book)", "mathKernel1 (-G)": a kernel's row where one name has several builds.
std::string variant_label(std::string_view name, std::string_view variant);

// The first table of a lesson's report: the one the profile joins. Throws std::logic_error when
// the report has none.
const report::Table& main_table(const report::Report& report);

// The position of column `key` in `table`; throws std::logic_error when the table lacks it (the
// lesson's table changed shape).
size_t column_index(const report::Table& table, const std::string& key);

// A cell as text: strings as they are, null as "", anything else as JSON.
std::string cell_text(const nlohmann::json& cell);

// Reads `median_column` and `check_column` of every row of `table`, labelled by `label`.
profile::TimedRows timed_rows_of(const report::Table& table,
                                 const std::function<std::string(const std::vector<nlohmann::json>&)>& label,
                                 const std::string& median_column, const std::string& check_column);

// The rows of a lesson whose label is one column of its main table ("median_ms", "check").
profile::TimedRows rows_labelled_by(const report::Report& report, const std::string& label_column);

}  // namespace warpfold::lab
