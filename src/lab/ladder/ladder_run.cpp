#include "lab/ladder/ladder_run.hpp"

#include "harness/bandwidth_probe.hpp"
#include "harness/device_info.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/host_timer.hpp"
#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "harness/host_memory.hpp"
#include "lab/ladder/l2_flush.hpp"
#include "lab/ladder/ladder_sweep.hpp"
#include "lab/ladder/workspace.hpp"
#include "harness/run_context.hpp"
#include "lab/book/book_compare.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>

namespace warpfold::lab {
namespace {

using nlohmann::json;

bool is_power_of_two(uint64_t x) { return x && !(x & (x - 1)); }

void validate_block(unsigned block) {
  if (!is_power_of_two(block) || block < 32 || block > 1024) {
    throw std::invalid_argument("block size " + std::to_string(block) +
                                " is not supported: use a power of two from 32 to 1024");
  }
}

std::vector<report::Column> ladder_columns() {
  return {{"kernel", "kernel"},        {"variant", "variant"},   {"grid", "grid"},
          {"block", "block"},          {"median_ms", "median ms", 4}, {"min_ms", "min ms", 4},
          {"max_ms", "max ms", 4},     {"gbps", "GB/s", 1},      {"pct_peak", "% peak", 1},
          {"speedup", "speedup", 2},   {"check", "check"}};
}

// The block sizes a run uses, for its header: the sweep ignores `block`, so it must not be shown.
std::string describe_blocks(const LadderOptions& o) {
  if (!o.block_sweep) return "block " + std::to_string(o.block);
  std::string text = "blocks";
  for (size_t i = 0; i < o.sweep_blocks.size(); ++i) text += (i ? ", " : " ") + std::to_string(o.sweep_blocks[i]);
  return text + " (sweep)";
}

harness::RunOutcome run_validated_ladder(const LadderOptions& o) {
  harness::RunOutcome out;
  const uint64_t seed = o.seed.value_or(harness::fresh_seed());
  const std::vector<int> data = harness::random_ints(o.n, seed);  // the book's rand() & 0xFF
  const harness::IntReference ref = harness::int_reference(reference_sum(data.data(), data.size()));

  report::Report& r = out.report;
  r.preamble.push_back("warpfold ladder: n = " + std::to_string(o.n) + ", " + describe_blocks(o) + ", " +
                       std::to_string(o.reps) + " reps, data rand() & 0xFF, seed " + std::to_string(seed));
  r.meta["command"] = "ladder";
  r.meta["n"] = o.n;
  if (o.block_sweep) {
    r.meta["blocks"] = o.sweep_blocks;
  } else {
    r.meta["block"] = o.block;
  }
  r.meta["reps"] = o.reps;
  r.meta["seed"] = seed;
  r.meta["exact_sum"] = ref.exact;
  r.meta["overflows_int32"] = ref.overflows_int32;
  r.meta["int32_wrap"] = ref.int32_wrap;

  report::Table table;
  table.title = o.block_sweep ? "reduction ladder: CPU references" : "reduction ladder";
  table.columns = ladder_columns();
  LadderCpuRows cpu = ladder_cpu_rows(data, ref, o.reps);
  for (auto& row : cpu.rows) table.add_row(std::move(row));
  out.check_failed = cpu.failed;
  table.notes.push_back(harness::describe_reference(ref));

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) {
    book::add_lesson_book_columns(table, "ladder");
    r.tables.push_back(std::move(table));
    return out;
  }
  out.gpu_ran = true;
  const size_t l2_bytes = ctx.device().l2_bytes;
  ctx.require_device_memory(LadderWorkspace::bytes_needed(o.n) + L2Flush::bytes_needed(l2_bytes),
                            "n = " + std::to_string(o.n));
  const double peak = ctx.read_bandwidth_gbps();
  r.preamble.push_back("timing: before every run the input is restored, then L2 flushed (both untimed), "
                       "so GB/s is read from DRAM like the peak");

  LadderWorkspace ws(data, ref.exact, ctx.stream());
  const L2Flush flush_l2(l2_bytes, ctx.stream());
  const auto kernels = select_kernels(o.variants);

  if (o.block_sweep) {
    r.tables.push_back(std::move(table));
    r.tables.push_back(block_sweep_table(ws, flush_l2, kernels, o, ctx.stream(), out.check_failed));
    return out;
  }

  double baseline_ms = 0;
  std::string baseline_name;
  std::vector<size_t> gpu_rows;
  for (const LadderKernel* k : kernels) {
    const LadderCheck check = ws.run_and_check(*k, o.block);
    if (k->variant == Variant::fixed && !check.ok()) out.check_failed = true;
    harness::TimingStats t;
    if (check.launched) {
      t = harness::time_on_stream(
          ctx.stream(), o.warmup, o.reps,
          [&] {
            ws.restore();
            flush_l2();
          },
          [&] { ws.launch(*k, o.block); });
    }
    const double gbps = check.launched ? double(o.n) * sizeof(int) / (t.median_ms * 1e-3) / 1e9 : 0;
    if (k->name == "reduceNeighbored" && baseline_name.empty() && check.launched) {
      baseline_ms = t.median_ms;
      baseline_name = std::string(k->name) + " (" + std::string(to_string(k->variant)) + ")";
    }
    gpu_rows.push_back(table.rows.size());
    auto num = [&](double v) { return check.launched ? json(v) : json(nullptr); };
    // A device-wide kernel picks its own grid and block: neither column applies.
    const json grid = k->device_wide ? json(nullptr) : json(check.grid), block = k->device_wide ? json(nullptr) : json(o.block);
    table.add_row({std::string(k->name), std::string(to_string(k->variant)), grid, block,
                   num(t.median_ms), num(t.min_ms), num(t.max_ms), num(gbps), num(100 * gbps / peak),
                   nullptr, check.verdict()});
  }
  if (baseline_ms > 0) {
    for (size_t i : gpu_rows) {
      const json& median = table.rows[i][4];
      if (median.is_number()) table.rows[i][9] = baseline_ms / median.get<double>();
    }
    table.notes.push_back("speedup: median time of " + baseline_name + " / the row's median time");
  }
  table.notes.push_back("GB/s: n × 4 bytes / median time; % peak: against the read bandwidth measured in this run");
  table.notes.push_back("the input is restored and L2 flushed (untimed) before every run of these in-place kernels; "
                        "reads past n see padding filled with " + std::to_string(kPaddingPoison) +
                        ", where a real buffer holds whatever lies there");
  if (ref.overflows_int32) table.notes.push_back("GPU rows are int32 kernels: checked against the int32 wrap");
  book::add_lesson_book_columns(table, "ladder");
  r.tables.push_back(std::move(table));
  return out;
}

}  // namespace

void validate_ladder_options(const LadderOptions& o) {
  if (o.n == 0) throw std::invalid_argument("n must be at least 1");
  if (o.n > kLadderMaxN) {
    throw std::invalid_argument("n = " + std::to_string(o.n) +
                                " is too large: the book's kernels take an unsigned int count (at most 2^32 - 1)");
  }
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.warmup < 0) throw std::invalid_argument("warmup must not be negative");
  validate_block(o.block);
  for (unsigned b : o.sweep_blocks) validate_block(b);
}

uint64_t ladder_host_bytes(uint64_t n) {
  // The input, plus the larger of what is held beside it: recursiveReduce's scratch copy, or the
  // workspace's padded staging copy.
  return n * sizeof(int) + std::max<uint64_t>(n * sizeof(int), LadderWorkspace::host_bytes_needed(n));
}

LadderCpuRows ladder_cpu_rows(const std::vector<int>& data, const harness::IntReference& ref, int reps) {
  LadderCpuRows out;
  const double bytes = double(data.size()) * sizeof(int);
  auto row = [&](const char* name, const char* variant, const harness::TimingStats& t, std::string check) {
    out.rows.push_back({name, variant, nullptr, nullptr, t.median_ms, t.min_ms, t.max_ms,
                        bytes / (t.median_ms * 1e-3) / 1e9, nullptr, nullptr, std::move(check)});
  };

  // recursiveReduce works in place on int32, as the book's does: checked against the int32 wrap.
  std::vector<int32_t> scratch(data.size());
  int32_t recursive = 0;
  const auto t_rec = harness::time_on_host(
      reps, [&] { scratch.assign(data.begin(), data.end()); },
      [&] { recursive = recursive_reduce(scratch.data(), scratch.size(), wrapping_int32_plus{}); });
  out.failed |= recursive != ref.int32_wrap;
  row("recursiveReduce (cpu)", ref.overflows_int32 ? "int32 wrap" : "int32", t_rec,
      harness::verdict(ref.int32_wrap, recursive));

  int64_t serial = 0;
  const auto t_ser = harness::time_on_host(reps, [] {}, [&] { serial = serial_sum(data.data(), data.size()); });
  out.failed |= serial != ref.exact;
  row("serial sum (cpu)", "int64", t_ser, harness::verdict(ref.exact, serial));
  return out;
}

harness::RunOutcome run_ladder(const LadderOptions& o) {
  validate_ladder_options(o);
  const std::string what = "the ladder at n = " + std::to_string(o.n);
  harness::require_host_memory(ladder_host_bytes(o.n), what);
  try {
    return run_validated_ladder(o);
  } catch (const std::bad_alloc&) {
    // A limit the check above cannot see, or memory taken since: still a sentence, not a crash.
    throw std::runtime_error("out of host memory: " + what + " needs about " + harness::gib_text(ladder_host_bytes(o.n)) +
                             " of host memory");
  }
}

}  // namespace warpfold::lab
