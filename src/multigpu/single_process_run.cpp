// The single set-up: this process drives GPUs 0..N-1 through one NCCL communicator per GPU.
#include "multigpu/measure.hpp"
#include "multigpu/mpi_run.hpp"
#include "multigpu/multigpu_run.hpp"
#include "multigpu/run_common.hpp"
#include "multigpu/shard_reference.hpp"

#include "harness/random_data.hpp"
#include "harness/run_context.hpp"

#include <warpfold/distributed/communicators.hpp>
#include <warpfold/error.hpp>

#include <memory>
#include <numeric>

namespace warpfold::multigpu {

using harness::Stop;
namespace {

// Whether NCCL can move data GPU to GPU directly (NVLink or PCIe peer access) or goes through host memory.
std::string peer_access_line(int gpus) {
  std::string missing;
  for (int a = 0; a < gpus; ++a) {
    for (int b = a + 1; b < gpus; ++b) {
      int can = 0;
      WARPFOLD_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) missing += (missing.empty() ? "" : ", ") + std::to_string(a) + "-" + std::to_string(b);
    }
  }
  if (missing.empty()) return "peer access: every pair of the " + std::to_string(gpus) + " GPUs";
  return "peer access: none between GPUs " + missing + " (NCCL goes through host memory there)";
}

MultigpuOutcome run_single_process(const MultigpuOptions& options) {
  MultigpuOptions o = options;
  validate(o);
  check_mode_fits_launch(Mode::single, process_environment());

  MultigpuOutcome out;
  report::Report& report = out.report;
  report.meta["command"] = "multigpu";
  harness::RunContext ctx = harness::RunContext::open(report);
  if (!ctx.has_device()) {
    out.stop = Stop::no_device;
    out.stop_reason = no_device_line(report.meta.value("no_device_reason", std::string("no device")));
    return out;
  }
  int present = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDeviceCount(&present));
  RunFacts facts;
  facts.gpus = resolve_gpu_count(o.gpus, present);
  facts.nvls = require_nvlink_multicast_off();
  for (int d = 0; d < facts.gpus; ++d) harness::require_free_device_memory(d, device_bytes_needed(o), describe_shard(o));
  if (!o.seed) o.seed = harness::fresh_seed();
  const uint64_t seed = *o.seed;
  facts.options = o;
  facts.nccl_version = loaded_nccl_version();

  std::vector<int> devices(facts.gpus);
  std::iota(devices.begin(), devices.end(), 0);
  // Declared in this order so that pipelines and streams are gone before the communicators.
  const distributed::communicators comms = distributed::communicators::init_all(devices);
  std::vector<std::unique_ptr<OwnedStream>> streams;
  std::vector<std::unique_ptr<RankPipeline>> pipelines;
  std::vector<LocalRank> ranks;
  std::vector<ShardReference> references;
  for (int d : devices) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(d));
    streams.push_back(std::make_unique<OwnedStream>());
    pipelines.push_back(make_rank_pipeline(o.type, o.op, o.n_per_gpu, seed, d, comms[size_t(d)], streams.back()->get()));
    ranks.push_back({d, d, streams.back()->get(), pipelines.back().get()});
  }
  for (int d : devices) references.push_back(reference_of_shard(o.type, o.n_per_gpu, seed, d));  // while the GPUs fill theirs

  std::vector<RankSummary> summaries = measure_ranks(ranks, references, o, [] {});
  for (auto& s : summaries) describe_device(s, s.device);
  if (facts.gpus > 1) report.preamble.push_back(peer_access_line(facts.gpus));
  out.check_failed = add_multigpu_results(report, facts, summaries);
  return out;
}

}  // namespace

MultigpuOutcome run_multigpu(const MultigpuOptions& options) {
  MultigpuOutcome out = options.mode == Mode::single ? run_single_process(options) : run_mpi(options);
  out.gpu_ran = out.stop == Stop::none;
  if (out.check_failed) out.wrong = "a GPU's partial or result differed from the CPU's (see the checks)";
  return out;
}

}  // namespace warpfold::multigpu
