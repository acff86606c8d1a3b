// The divergence lesson's profile pass (lab/profile_pass.hpp).
#include "harness/device_limits.hpp"
#include "lab/divergence/divergence_workspace.hpp"
#include "lab/profile_pass.hpp"
#include "harness/run_context.hpp"

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

}  // namespace warpfold::lab
