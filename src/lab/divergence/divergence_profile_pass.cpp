#include "lab/divergence/divergence_profile_pass.hpp"

#include "harness/device_limits.hpp"
#include "harness/run_context.hpp"
#include "lab/divergence/divergence_workspace.hpp"

namespace warpfold::lab {

profile::LaunchManifest divergence_profile_pass(const DivergenceOptions& o) {
  validate_divergence_options(o);
  report::Report unused;
  harness::RunContext ctx = harness::RunContext::open(unused);
  const int warp = harness::query_device_limits(0).warp_size;
  ctx.require_device_memory(divergence::DivergenceWorkspace::bytes_needed(o.n, o.block), "n = " + std::to_string(o.n));
  const divergence::DivergenceWorkspace ws(o.n, o.block, ctx.stream());
  profile::LaunchManifest launches;
  for (divergence::Build b : {divergence::Build::optimised, divergence::Build::device_debug}) {
    for (const divergence::DivergenceKernel& k : divergence::divergence_kernels()) {
      ws.run_and_check(k, b, warp);
      launches.add(variant_label(k.name, divergence::to_string(b)), std::string(k.in(b).name));
    }
  }
  return launches;
}

profile::TimedRows divergence_timed_rows(const report::Report& r) {
  const report::Table& t = main_table(r);
  const size_t kernel = column_index(t, "kernel");
  const auto label = [&](divergence::Build b) {
    return [=](const std::vector<nlohmann::json>& row) { return variant_label(cell_text(row[kernel]), divergence::to_string(b)); };
  };
  profile::TimedRows rows = timed_rows_of(t, label(divergence::Build::optimised), "o3_median_ms", "o3_check");
  rows.merge(timed_rows_of(t, label(divergence::Build::device_debug), "g_median_ms", "g_check"));
  return rows;
}

}  // namespace warpfold::lab
