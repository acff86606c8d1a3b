#include "lab/grid_shape/grid_profile_pass.hpp"

#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "lab/grid_shape/matrix_workspace.hpp"

namespace warpfold::lab {

profile::LaunchManifest grid_profile_pass(const GridOptions& o) {
  validate_grid_options(o);
  report::Report unused;
  harness::RunContext ctx = harness::RunContext::open(unused);
  ctx.require_device_memory(MatrixWorkspace::bytes_needed(o.nx, o.ny),
                            "a " + std::to_string(o.nx) + " x " + std::to_string(o.ny) + " matrix sum");
  const harness::DeviceLimits limits = harness::query_device_limits(0);
  MatrixWorkspace ws(o.nx, o.ny, o.seed.value_or(harness::fresh_seed()), ctx.stream());
  profile::LaunchManifest launches;
  for (BlockShape b : o.shapes) {
    const GridShape g = grid_for(b, o.nx, o.ny);
    if (launch_limit_violation(b, g, limits)) continue;  // an invalid configuration runs nothing
    ws.run_and_check(b, g);
    launches.add(b.label(), "sumMatrixOnGPU2D");
  }
  return launches;
}

profile::TimedRows grid_timed_rows(const report::Report& r) { return rows_labelled_by(r, "block"); }

}  // namespace warpfold::lab
