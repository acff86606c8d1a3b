// The ladder's profile pass (lab/profile_pass.hpp).
#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "harness/host_memory.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/ladder/workspace.hpp"
#include "lab/profile_pass.hpp"
#include "harness/run_context.hpp"

#include <stdexcept>

namespace warpfold::lab {

std::string variant_label(std::string_view name, std::string_view variant) {
  return std::string(name) + " (" + std::string(variant) + ")";
}

profile::LaunchManifest ladder_profile_pass(const LadderOptions& o) {
  validate_ladder_options(o);
  if (o.block_sweep) throw std::invalid_argument("the profile runs one block size: drop --block-sweep");  // as ladder_profile
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
      launches.add(variant_label(k->name, to_string(k->variant)), std::string(k->name));
    }
  }
  return launches;
}

}  // namespace warpfold::lab
