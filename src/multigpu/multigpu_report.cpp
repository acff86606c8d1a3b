#include "multigpu/multigpu_report.hpp"

#include "multigpu/scaling.hpp"

#include <stdexcept>

namespace warpfold::multigpu {
namespace {

using nlohmann::json;

json scalar_json(ElementType type, const Scalar& s) { return type == ElementType::int32 ? json(s.integer) : json(s.real); }

json expected_json(ElementType type, ReduceOp op, const ShardReference& ref) {
  if (op == ReduceOp::max) return type == ElementType::int32 ? json(int64_t(ref.max_value)) : json(ref.max_value);
  return type == ElementType::int32 ? json(ref.int_sum) : json(double(ref.real_sum));
}

double bytes_per_gpu(const RunFacts& f) { return double(f.options.n_per_gpu) * double(bench::element_bytes(f.options.type)); }

// Every rank's result, before and after timing, against the CPU and against the partials.
std::string check_results(const RunFacts& f, const std::vector<RankSummary>& ranks, const ShardReference& all) {
  const MultigpuOptions& o = f.options;
  std::vector<Scalar> partials;
  for (const auto& r : ranks) partials.push_back(r.partial);
  std::string failures;
  auto note = [&](const RankSummary& r, const std::string& what, const std::string& verdict) {
    if (verdict == "ok") return;
    failures += (failures.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r.rank) + " " + what + ": " + verdict;
  };
  for (const auto& r : ranks) {
    note(r, "result", check_against_reference(o.type, o.op, all, r.result, o.n_per_gpu, f.gpus));
    note(r, "result", check_combine(o.type, o.op, partials, r.result));
    note(r, "result after timing", check_against_reference(o.type, o.op, all, r.result_after_timing, o.n_per_gpu, f.gpus));
  }
  return failures.empty() ? "ok" : failures;
}

std::string describe_elements(const RunFacts& f) {
  const MultigpuOptions& o = f.options;
  return bench::to_string(o.type) + " elements, " + accumulator_name(o.type, o.op) + " " + bench::to_string(o.op);
}

report::Table per_gpu_table(const RunFacts& f, const std::vector<RankSummary>& ranks) {
  report::Table t;
  t.title = "per GPU: local reduce (warpfold::reduce) and NCCL combine (ncclAllReduce of one partial)";
  t.columns = {{"rank", "rank"},
               {"host", "host"},
               {"device", "GPU"},
               {"name", "name"},
               {"pci_bus", "PCI bus"},
               {"n", "n"},
               {"local_median_us", "local us", 2},
               {"local_min_us", "min", 2},
               {"local_max_us", "max", 2},
               {"local_gbps", "local GB/s", 1},
               {"nccl_median_us", "NCCL us", 2},
               {"total_median_us", "total us", 2},
               {"nccl_alone_us", "NCCL alone us", 2},
               {"partial", "partial"},
               {"partial_check", "partial check"}};
  const MultigpuOptions& o = f.options;
  for (const auto& r : ranks) {
    t.add_row({r.rank, r.host, r.device, r.name, r.pci_bus, o.n_per_gpu, r.local.median_ms * 1e3, r.local.min_ms * 1e3,
               r.local.max_ms * 1e3, gbps(bytes_per_gpu(f), r.local.median_ms), r.combine.median_ms * 1e3,
               r.total.median_ms * 1e3, r.combine_alone.median_ms * 1e3, scalar_json(o.type, r.partial),
               check_against_reference(o.type, o.op, r.reference, r.partial, o.n_per_gpu, 0)});
  }
  t.notes.push_back("local: the GPU's shard reduced into one partial; NCCL: the all-reduce of the partials, which "
                    "includes waiting for the slowest GPU; total: local + NCCL of the same repetition; medians over " +
                    std::to_string(o.reps) + " repetitions after " + std::to_string(o.warmup) + " warm-ups, CUDA events on each GPU's stream");
  t.notes.push_back("every repetition starts on all GPUs at once (a one-thread kernel holds each stream until the host "
                    "releases them together), so the host's launch skew between GPUs is not counted");
  t.notes.push_back("NCCL alone: the all-reduce of the partials with no local phase before it (NCCL's latency for one element)");
  return t;
}

report::Table aggregate_table(const RunFacts& f, const Aggregate& a, const std::vector<RankSummary>& ranks) {
  const MultigpuOptions& o = f.options;
  report::Table t;
  t.title = "all GPUs: slowest GPU's medians, aggregate bandwidth, scaling against one GPU, result against the CPU";
  t.columns = {{"gpus", "GPUs"},
               {"mode", "set-up"},
               {"type", "type"},
               {"op", "op"},
               {"n_per_gpu", "n per GPU"},
               {"local_us", "local us", 2},
               {"nccl_us", "NCCL us", 2},
               {"total_us", "total us", 2},
               {"nccl_alone_us", "NCCL alone us", 2},
               {"aggregate_gbps", "aggregate GB/s", 1},
               {"one_gpu_gbps", "1-GPU GB/s", 1},
               {"efficiency_pct", "efficiency %", 1},
               {"result", "result"},
               {"expected", "CPU"},
               {"relative_error", "rel. error", -1},
               {"check", "check"}};
  t.add_row({f.gpus, to_string(o.mode), bench::to_string(o.type), bench::to_string(o.op), o.n_per_gpu, a.local_ms * 1e3,
             a.combine_ms * 1e3, a.total_ms * 1e3, a.combine_alone_ms * 1e3, a.aggregate_gbps, a.one_gpu_gbps,
             100 * a.efficiency, scalar_json(o.type, ranks.front().result), expected_json(o.type, o.op, a.reference),
             relative_error(o.type, o.op, a.reference, ranks.front().result), a.check});
  t.notes.push_back("aggregate GB/s = GPUs × n × " + std::to_string(bench::element_bytes(o.type)) +
                    " bytes / total; 1-GPU GB/s = n × " + std::to_string(bench::element_bytes(o.type)) +
                    " bytes / the local reduce on rank 0 alone (every other GPU idle, no NCCL), measured in this run; "
                    "efficiency = aggregate / (GPUs × 1-GPU), so it counts the NCCL phase and any slowdown of the GPUs");
  if (o.type == ElementType::int32 || o.op == ReduceOp::max) {
    t.notes.push_back("check: every GPU's result equals the CPU's exactly (int32 sums accumulate in int64), before and after the timed repetitions");
  } else {
    t.notes.push_back("check: every GPU's result within (n/256 + 25 + GPUs)·u·Σ|x| of the CPU's long-double sum "
                      "(warpfold::reduce's bound plus NCCL's sum of the partials; u = " +
                      std::string(o.type == ElementType::float32 ? "2^-24" : "2^-53") +
                      "), and within GPUs·u·Σ|partial| of the sum of the partials the GPUs held (a missing or "
                      "doubled GPU shows however large n is)");
  }
  return t;
}

}  // namespace

std::string nccl_version_string(int code) {
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

Aggregate aggregate(const RunFacts& f, const std::vector<RankSummary>& ranks) {
  if (ranks.empty()) throw std::invalid_argument("aggregate: no GPU");
  const RankSummary* rank0 = nullptr;
  std::vector<harness::TimingStats> locals, combines, totals, alones;
  Aggregate a;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& r = ranks[i];
    if (r.rank == 0) rank0 = &r;
    locals.push_back(r.local);
    combines.push_back(r.combine);
    totals.push_back(r.total);
    alones.push_back(r.combine_alone);
    a.reference = i == 0 ? r.reference : combine(a.reference, r.reference);
  }
  if (rank0 == nullptr || rank0->local_alone.reps == 0) {
    throw std::invalid_argument("aggregate: rank 0's one-GPU baseline is missing");
  }
  a.local_ms = slowest_median_ms(locals);
  a.combine_ms = slowest_median_ms(combines);
  a.total_ms = slowest_median_ms(totals);
  a.combine_alone_ms = slowest_median_ms(alones);
  a.aggregate_gbps = gbps(f.gpus * bytes_per_gpu(f), a.total_ms);
  a.one_gpu_gbps = gbps(bytes_per_gpu(f), rank0->local_alone.median_ms);
  a.efficiency = scaling_efficiency(a.aggregate_gbps, f.gpus, a.one_gpu_gbps);
  a.check = check_results(f, ranks, a.reference);
  return a;
}

bool add_multigpu_results(report::Report& report, const RunFacts& f, const std::vector<RankSummary>& ranks) {
  const MultigpuOptions& o = f.options;
  const Aggregate a = aggregate(f, ranks);
  report.meta["mode"] = to_string(o.mode);
  report.meta["gpus"] = f.gpus;
  report.meta["n_per_gpu"] = o.n_per_gpu;
  report.meta["type"] = bench::to_string(o.type);
  report.meta["accumulator"] = accumulator_name(o.type, o.op);
  report.meta["op"] = bench::to_string(o.op);
  report.meta["reps"] = o.reps;
  report.meta["warmup"] = o.warmup;
  report.meta["seed"] = o.seed.value();  // RunFacts holds the seed the run used
  report.meta["nccl_version"] = f.nccl_version;
  report.meta["nccl_nvls_enable"] = f.nvls;
  for (const auto& r : ranks) {
    if (r.rank != 0) continue;
    report.meta["one_gpu_local"] = {{"median_us", r.local_alone.median_ms * 1e3},
                                    {"min_us", r.local_alone.min_ms * 1e3},
                                    {"max_us", r.local_alone.max_ms * 1e3},
                                    {"gbps", a.one_gpu_gbps}};
  }
  if (!f.mpi_library.empty()) report.meta["mpi_library"] = f.mpi_library;

  // The run's description first, above the device lines the context wrote.
  report.preamble.insert(report.preamble.begin(), "warpfold multigpu: " + to_string(o.mode) + " set-up (" +
                            (o.mode == Mode::single ? "one process, every GPU" : "one process per GPU") + "), " +
                            std::to_string(f.gpus) + " GPU(s) × n = " + std::to_string(o.n_per_gpu) + ", " +
                            describe_elements(f) + ", seed " + std::to_string(o.seed.value()));
  report.preamble.push_back("NCCL " + f.nccl_version + ", " + f.nvls);
  if (!f.mpi_library.empty()) report.preamble.push_back("MPI: " + f.mpi_library);
  report.tables.push_back(per_gpu_table(f, ranks));
  report.tables.push_back(aggregate_table(f, a, ranks));

  bool failed = a.check != "ok";
  for (const auto& r : ranks) {
    failed |= check_against_reference(o.type, o.op, r.reference, r.partial, o.n_per_gpu, 0) != "ok";
  }
  return failed;
}

}  // namespace warpfold::multigpu
