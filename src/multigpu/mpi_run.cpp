// The mpi set-up: one process per GPU, started by mpirun on one host or many. Rank 0 makes the
// NCCL id and MPI_Bcast hands it to the others; each process joins with ncclCommInitRank on its
// host-local GPU. Rank 0 gathers every GPU's numbers and alone writes the report.
#include "multigpu/mpi_run.hpp"

#include "multigpu/measure.hpp"
#include "multigpu/mpi_session.hpp"
#include "multigpu/run_common.hpp"
#include "multigpu/shard_reference.hpp"

#include "harness/device_info.hpp"
#include "harness/random_data.hpp"
#include "harness/run_context.hpp"

#include <warpfold/distributed/communicators.hpp>
#include <warpfold/error.hpp>

#include <unistd.h>

#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace warpfold::multigpu {

using harness::Stop;

namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

// What this process found before NCCL may start.
struct Readiness {
  Stop stop = Stop::none;
  std::string message;
  int device = -1;
  std::string nvls;
};

// Checks every process makes alike (arguments against the job's size): only rank 0 speaks.
void check_job(const MultigpuOptions& o, const MpiSession& mpi, Readiness& r) {
  try {
    validate(o);
    resolve_mpi_gpu_count(o.gpus, mpi.size());
  } catch (const std::invalid_argument& e) {
    r.stop = Stop::bad_request;
    if (mpi.rank() == 0) r.message = std::string("error: ") + e.what();
  }
}

// Checks of this process's own host and GPU: every process that fails one says so, with its rank.
// Rank 0 also opens the report's context (its GPU is its host's GPU 0).
void check_process(const MultigpuOptions& o, const MpiSession& mpi, const std::string& who, Readiness& r,
                   std::optional<harness::RunContext>& context, report::Report& report) {
  try {
    if (const auto reason = harness::cuda_unavailable_reason()) {
      r.stop = Stop::no_device;
      r.message = (mpi.rank() == 0 ? "" : who + ": ") + no_device_line(*reason);
      return;
    }
    if (mpi.rank() == 0) context.emplace(harness::RunContext::open(report));
    int count = 0;
    WARPFOLD_CUDA_CHECK(cudaGetDeviceCount(&count));
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    r.device = choose_local_device(mpi.local_rank(), mpi.local_size(), count, visible != nullptr && *visible != '\0');
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r.device));
    r.nvls = require_nvlink_multicast_off();
    harness::require_free_device_memory(r.device, device_bytes_needed(o), describe_shard(o));
  } catch (const std::invalid_argument& e) {
    r.stop = Stop::bad_request;
    r.message = who + ": error: " + e.what();
  } catch (const std::exception& e) {
    r.stop = Stop::failed;
    r.message = who + ": error: " + e.what();
  }
}

// Measures this process's GPU; on rank 0 also builds the report from every process's numbers.
// Returns whether a check failed (every process learns it, so all exit alike).
bool measure_and_report(MultigpuOptions& o, const MpiSession& mpi, const Readiness& ready, report::Report& report) {
  // Rank 0 decides the seed (the one given, else a fresh one) and every rank takes it.
  uint64_t seed = 0;
  if (mpi.rank() == 0) seed = o.seed ? *o.seed : harness::fresh_seed();
  mpi.broadcast_from_root(&seed, sizeof seed);
  o.seed = seed;
  ncclUniqueId id{};
  if (mpi.rank() == 0) id = distributed::new_unique_id();
  mpi.broadcast_from_root(&id, sizeof id);

  const distributed::communicators comm = distributed::communicators::init_rank(mpi.size(), id, mpi.rank(), ready.device);
  OwnedStream stream;
  const auto pipeline = make_rank_pipeline(o.type, o.op, o.n_per_gpu, seed, mpi.rank(), comm[0], stream.get());
  const ShardReference reference = reference_of_shard(o.type, o.n_per_gpu, seed, mpi.rank());
  std::vector<RankSummary> mine = measure_ranks({{mpi.rank(), ready.device, stream.get(), pipeline.get()}},
                                                {reference}, o, [&] { mpi.barrier(); });
  describe_device(mine[0], ready.device);

  const std::vector<char> bytes = mpi.gather_to_root(&mine[0], int(sizeof(RankSummary)));
  int failed = 0;
  if (mpi.rank() == 0) {
    std::vector<RankSummary> all(size_t(mpi.size()));
    std::memcpy(all.data(), bytes.data(), bytes.size());
    RunFacts facts;
    facts.options = o;
    facts.gpus = mpi.size();
    facts.nccl_version = loaded_nccl_version();
    facts.nvls = ready.nvls;
    facts.mpi_library = mpi.library_version();
    failed = add_multigpu_results(report, facts, all) ? 1 : 0;
  }
  mpi.broadcast_from_root(&failed, sizeof failed);
  return failed != 0;
}

}  // namespace

bool mpi_mode_built() { return true; }

MultigpuOutcome run_mpi(const MultigpuOptions& options) {
  MpiSession mpi;
  MultigpuOutcome out;
  out.writes_report = mpi.rank() == 0;
  const std::string who = "rank " + std::to_string(mpi.rank()) + " of " + std::to_string(mpi.size()) + " (" + host_name() + ")";
  out.report.meta["command"] = "multigpu";

  // Before NCCL: every process checks, then all go on or all stop with the gravest reason, so that
  // no process waits in ncclCommInitRank for one that gave up.
  Readiness ready;
  check_job(options, mpi, ready);
  std::optional<harness::RunContext> context;
  if (ready.stop == Stop::none) check_process(options, mpi, who, ready, context, out.report);
  const Stop agreed = Stop(mpi.max_over_ranks(int(ready.stop)));
  if (agreed != Stop::none) {
    int root_stop = int(ready.stop);
    mpi.broadcast_from_root(&root_stop, sizeof root_stop);
    out.stop = agreed;
    out.writes_report = false;
    // Where rank 0 has no GPU either, its line speaks for all: one line, not one per process.
    const bool said_by_root = ready.stop == Stop::no_device && Stop(root_stop) == Stop::no_device && mpi.rank() != 0;
    if (!said_by_root) out.stop_reason = ready.message;
    return out;
  }

  MultigpuOptions o = options;
  try {
    out.check_failed = measure_and_report(o, mpi, ready, out.report);
  } catch (const std::exception& e) {
    // A peer may be waiting for this process in NCCL or MPI: end the whole job.
    std::cerr << "warpfold: " << who << ": error: " << e.what() << std::endl;
    mpi.abort(1);
  }
  return out;
}

}  // namespace warpfold::multigpu
