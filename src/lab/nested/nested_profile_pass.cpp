#include "lab/nested/nested_profile_pass.hpp"

#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "lab/ladder/workspace.hpp"
#include "lab/nested/launch_limits.hpp"
#include "lab/nested/nested_workspace.hpp"

namespace warpfold::lab {

profile::LaunchManifest nested_profile_pass(const NestedOptions& o) {
  validate_nested_options(o);
  // The timed run's data (never 0, see run_nested), so the checks mean the same.
  const std::vector<int> data = harness::random_ints(o.n, o.seed.value_or(harness::fresh_seed()), 1, 255);
  const int64_t exact = serial_sum(data.data(), data.size());
  const NestedShape shape = nested_shape(o.n, o.block);
  report::Report unused;
  harness::RunContext ctx = harness::RunContext::open(unused);
  ensure_launch_slots(nested_launch_slots(shape.grid, shape.block));
  ctx.require_device_memory(LadderWorkspace::bytes_needed(o.n) + NestedWorkspace::bytes_needed(o.n, o.block),
                            "n = " + std::to_string(o.n));
  profile::LaunchManifest launches;
  {
    const LadderKernel& neighbored = find_ladder_kernel("reduceNeighbored", Variant::fixed);
    const LadderWorkspace ladder(data, exact, ctx.stream());
    ladder.run_and_check(neighbored, o.block);
    launches.add("neighbored", std::string(neighbored.name));
  }
  const NestedWorkspace ws(data, exact, o.block, ctx.stream());
  for (NestedVariant v : kNestedVariants) {
    ws.run_and_check(v);
    launches.add(std::string(nested_row_name(v)), std::string(nested_book_name(v)));
  }
  return launches;
}

profile::TimedRows nested_timed_rows(const report::Report& r) { return rows_labelled_by(r, "kernel"); }

}  // namespace warpfold::lab
