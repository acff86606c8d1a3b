#include "lab/ladder/ladder_profile_pass.hpp"

#include "harness/host_memory.hpp"
#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "lab/ladder/workspace.hpp"

#include <stdexcept>

namespace warpfold::lab {

void validate_ladder_profile_options(const LadderOptions& o) {
  validate_ladder_options(o);
  if (o.block_sweep) throw std::invalid_argument("the profile runs one block size: drop --block-sweep");
}

profile::LaunchManifest ladder_profile_pass(const LadderOptions& o) {
  validate_ladder_profile_options(o);
  harness::require_host_memory(ladder_host_bytes(o.n), "the ladder at n = " + std::to_string(o.n));
  const std::vector<int> data = harness::random_ints(o.n, o.seed.value_or(harness::fresh_seed()));
  report::Report unused;
  harness::RunContext ctx = harness::RunContext::open(unused);
  ctx.require_device_memory(LadderWorkspace::bytes_needed(o.n), "n = " + std::to_string(o.n));
  const LadderWorkspace ws(data, serial_sum(data.data(), data.size()), ctx.stream());
  profile::LaunchManifest launches;
  for (const LadderKernel* k : select_kernels(o.variants)) {
    // The book's launch rule may launch nothing (grid.x / 8 rounding to 0): no row to profile.
    if (ws.run_and_check(*k, o.block).launched) {
      launches.add(variant_label(k->name, to_string(k->variant)), std::string(k->function_name));
    }
  }
  return launches;
}

profile::TimedRows ladder_timed_rows(const report::Report& r) {
  const report::Table& t = main_table(r);
  const size_t kernel = column_index(t, "kernel"), variant = column_index(t, "variant");
  return timed_rows_of(
      t, [=](const std::vector<nlohmann::json>& row) { return variant_label(cell_text(row[kernel]), cell_text(row[variant])); },
      "median_ms", "check");
}

}  // namespace warpfold::lab
