#include "lab/divergence/divergence_run.hpp"

#include "harness/device_limits.hpp"
#include "harness/gpu_timer.hpp"
#include "lab/divergence/divergence_workspace.hpp"
#include "lab/repetitions.hpp"
#include "harness/run_context.hpp"
#include "lab/book/book_compare.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace warpfold::lab {
namespace {

using nlohmann::json;
using divergence::Build;
using divergence::DivergenceKernel;

constexpr Build kBuilds[] = {Build::optimised, Build::device_debug};
constexpr std::string_view kBaseline = "mathKernel2";

struct Measured {
  harness::TimingStats timing;
  divergence::OutputCheck check;
};

std::vector<report::Column> divergence_columns() {
  return {{"kernel", "kernel"},
          {"condition", "branch condition"},
          {"divergent_warps_pct", "divergent warps %", 1},
          {"o3_median_ms", "-O3 ms", 4},
          {"o3_spread_pct", "-O3 spread %", 1},
          {"o3_vs_mathKernel2", "-O3 / mathKernel2", 2},
          {"g_median_ms", "-G ms", 4},
          {"g_spread_pct", "-G spread %", 1},
          {"g_vs_mathKernel2", "-G / mathKernel2", 2},
          {"o3_check", "-O3 check"},
          {"g_check", "-G check"}};
}

std::vector<std::string> divergence_notes(const DivergenceOptions& o) {
  return {
      "grid = ceil(n / block) blocks, as the seed; the kernels have no bounds check, so every one of the "
      "grid × block threads writes one float, and every one is checked",
      "ms: median of " + std::to_string(o.reps) + " CUDA-event timings after " + std::to_string(o.warmup) +
          " warm-up launches; spread = (max - min) / median; X / mathKernel2: the row's median over "
          "mathKernel2's in the same build",
      "divergent warps: warps whose threads take both branches, from the branch condition on the CPU; the "
      "output check confirms every thread's path (100: if, 200: else), after the buffer was filled with NaN",
      "-O3: nvcc turns these short branches into a select (predication), so no warp runs both paths and the "
      "times agree; -G (device debug, unoptimised) keeps every branch, so a divergent warp runs both paths "
      "one after the other (docs/execution-model.md)",
      "at -G the book's pair also differs in arithmetic (mathKernel2 divides by warpSize, mathKernel1 takes a "
      "remainder): the controlled pair below isolates divergence",
      "mathKernel4 (book): `itid & 0x01 == 0` parses as itid & (0x01 == 0) = itid & 0, never true, so every "
      "thread writes 200 and the check expects that; mathKernel4 (fixed) is the warp-granular branch meant"};
}

// The columns that need no device: the kernel, its condition and its share of divergent warps.
std::vector<json> row_head(const DivergenceKernel& k, uint64_t threads, int warp_size) {
  const auto paths = divergence::count_divergent_warps(k.takes_if, threads, warp_size);
  return {std::string(k.name), std::string(k.condition), 100 * paths.divergent_fraction()};
}

size_t index_of(const std::vector<DivergenceKernel>& kernels, std::string_view name) {
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].entry_name() == name) return i;
  }
  throw std::logic_error("the divergence registry has no " + std::string(name));
}

// The lab's controlled pair side by side: same instructions, one splits every warp.
report::Table controlled_pair_table(const std::array<Measured, 2>& divergent, const std::array<Measured, 2>& uniform) {
  report::Table t;
  t.title = "divergence alone: maskKernel<0x01> vs maskKernel<0x20> (long branches, one constant apart)";
  t.columns = {{"build", "build"},
               {"divergent_ms", "(tid & 0x01) ms", 4},
               {"uniform_ms", "(tid & 0x20) ms", 4},
               {"ratio", "divergent / uniform", 2}};
  for (Build b : kBuilds) {
    const double d = divergent[size_t(b)].timing.median_ms, u = uniform[size_t(b)].timing.median_ms;
    t.add_row({std::string(divergence::to_string(b)), d, u, d / u});
  }
  t.notes.push_back("bit 0 of tid differs between neighbouring threads, so every warp takes both branches; bit 5 "
                    "changes only between warps, so no warp does. Each side runs 512 steps of dependent integer "
                    "arithmetic, too long to predicate: a divergent warp runs both sides one after the other, so "
                    "the ratio (about 2) is the price of divergence, in both builds");
  return t;
}

}  // namespace

void validate_divergence_options(const DivergenceOptions& o) {
  if (o.n == 0) throw std::invalid_argument("n must be at least 1");
  if (o.n > kDivergenceMaxN) {
    throw std::invalid_argument("n = " + std::to_string(o.n) + " is too large: at most 2^30 (the kernels index "
                                "threads with an int and write one float each)");
  }
  const unsigned b = o.block;
  if (b < 32 || b > 1024 || (b & (b - 1)) != 0) {
    throw std::invalid_argument("block size " + std::to_string(b) +
                                " is not supported: use a power of two from 32 to 1024");
  }
  validate_repetitions(o.reps, o.warmup);
}

harness::RunOutcome run_divergence(const DivergenceOptions& o) {
  validate_divergence_options(o);
  harness::RunOutcome out;
  report::Report& r = out.report;
  const unsigned grid = divergence::divergence_grid(o.n, o.block);
  const uint64_t threads = uint64_t(grid) * o.block;
  r.preamble.push_back("warpfold divergence: n = " + std::to_string(o.n) + ", block " + std::to_string(o.block) +
                       ", grid " + std::to_string(grid) + " (" + std::to_string(threads) + " threads), " +
                       std::to_string(o.reps) + " reps");
  r.meta["command"] = "divergence";
  r.meta["n"] = o.n;
  r.meta["block"] = o.block;
  r.meta["grid"] = grid;
  r.meta["reps"] = o.reps;
  r.meta["warmup"] = o.warmup;

  harness::RunContext ctx = harness::RunContext::open(r);
  const int warp = ctx.has_device() ? harness::query_device_limits(0).warp_size : 32;

  report::Table table;
  table.title = "warp divergence: the same kernels optimised (-O3) and with device debug (-G)";
  table.columns = divergence_columns();
  table.notes = divergence_notes(o);
  const auto& kernels = divergence::divergence_kernels();

  if (!ctx.has_device()) {
    for (const DivergenceKernel& k : kernels) {
      std::vector<json> row = row_head(k, threads, warp);
      row.resize(table.columns.size());  // no times, no checks
      table.add_row(std::move(row));
    }
    book::add_lesson_book_columns(table, "divergence");
    r.tables.push_back(std::move(table));
    return out;
  }
  out.gpu_ran = true;
  ctx.require_device_memory(divergence::DivergenceWorkspace::bytes_needed(o.n, o.block),
                            "n = " + std::to_string(o.n));
  const divergence::DivergenceWorkspace ws(o.n, o.block, ctx.stream());

  // Everything is measured first, so that the ratios divide by mathKernel2's time of the same pass.
  std::vector<std::array<Measured, 2>> measured;
  for (const DivergenceKernel& k : kernels) {
    std::array<Measured, 2> per_build;
    for (Build b : kBuilds) {
      Measured& m = per_build[size_t(b)];
      m.check = ws.run_and_check(k, b, warp);
      m.timing = harness::time_on_stream(ctx.stream(), o.warmup, o.reps, [] {}, [&] { ws.launch(k, b); });
      out.check_failed |= !m.check.ok();
    }
    measured.push_back(per_build);
  }
  const auto& baseline = measured.at(index_of(kernels, kBaseline));

  for (size_t i = 0; i < kernels.size(); ++i) {
    std::vector<json> row = row_head(kernels[i], threads, warp);
    for (Build b : kBuilds) {
      const harness::TimingStats& t = measured[i][size_t(b)].timing;
      row.push_back(t.median_ms);
      row.push_back(100 * t.spread());
      row.push_back(t.median_ms / baseline[size_t(b)].timing.median_ms);
    }
    for (Build b : kBuilds) row.push_back(measured[i][size_t(b)].check.verdict());
    table.add_row(std::move(row));
  }
  book::add_lesson_book_columns(table, "divergence");
  r.tables.push_back(std::move(table));
  r.tables.push_back(controlled_pair_table(measured.at(index_of(kernels, "maskKernel<0x01>")),
                                           measured.at(index_of(kernels, "maskKernel<0x20>"))));
  return out;
}

}  // namespace warpfold::lab
