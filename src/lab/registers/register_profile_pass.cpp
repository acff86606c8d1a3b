#include "lab/registers/register_profile_pass.hpp"

#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "lab/registers/register_workspace.hpp"

namespace warpfold::lab {

profile::LaunchManifest registers_profile_pass(const RegistersOptions& o) {
  validate_registers_options(o);
  report::Report unused;
  harness::RunContext ctx = harness::RunContext::open(unused);
  ctx.require_device_memory(RegisterWorkspace::bytes_needed(o.n), std::to_string(o.n) + " threads of the register lesson");
  RegisterWorkspace ws(o.n, o.seed.value_or(harness::fresh_seed()), ctx.stream());
  profile::LaunchManifest launches;
  for (const auto& v : registers::register_variants()) {
    ws.run_and_check(v);
    launches.add(v.label(), v.function_name);
  }
  return launches;
}

profile::TimedRows registers_timed_rows(const report::Report& r) {
  const report::Table& t = main_table(r);
  const size_t kernel = column_index(t, "kernel"), limit = column_index(t, "limit");
  return timed_rows_of(t, [=](const std::vector<nlohmann::json>& row) { return cell_text(row[kernel]) + " " + cell_text(row[limit]); },
                       "median_ms", "check");
}

}  // namespace warpfold::lab
