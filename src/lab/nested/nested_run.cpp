#include "lab/nested/nested_run.hpp"

#include "harness/gpu_timer.hpp"
#include "harness/host_timer.hpp"
#include "harness/int_sum_check.hpp"
#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "lab/ladder/workspace.hpp"
#include "lab/nested/launch_limits.hpp"
#include "lab/nested/nested_workspace.hpp"
#include "harness/run_context.hpp"
#include "lab/book/book_compare.hpp"

#include <stdexcept>
#include <string>

namespace warpfold::lab {
namespace {

using nlohmann::json;

// Column order of the rows built below.
enum Col { kKernel, kBookKernel, kGrid, kBlock, kChildLaunches, kChildStream, kMedian, kMin, kMax, kVsNeighbored, kSum, kCheck };

std::vector<report::Column> nested_columns() {
  return {{"kernel", "kernel"},
          {"book_kernel", "book kernel"},
          {"grid", "grid"},
          {"block", "block"},
          {"child_launches", "child launches"},
          {"child_stream", "children launched into"},
          {"median_ms", "median ms", 4},
          {"min_ms", "min ms", 4},
          {"max_ms", "max ms", 4},
          {"vs_neighbored", "x neighbored", 2},
          {"sum", "sum"},
          {"check", "check"}};
}

// The neighbored row runs the ladder's fixed reduceNeighbored (exact for every n).
const LadderKernel& neighbored_kernel() { return find_ladder_kernel("reduceNeighbored", Variant::fixed); }

json timing_cell(bool timed, double value) { return timed ? json(value) : json(nullptr); }

std::vector<json> cpu_row(const std::vector<int>& data, const harness::IntReference& ref, int reps, bool& failed) {
  // The seed's recursiveReduce, in place on int32 as the book's: checked against the int32 wrap.
  std::vector<int32_t> scratch(data.size());
  int32_t sum = 0;
  const harness::TimingStats t = harness::time_on_host(
      reps, [&] { scratch.assign(data.begin(), data.end()); },
      [&] { sum = recursive_reduce(scratch.data(), scratch.size(), wrapping_int32_plus{}); });
  failed |= sum != ref.int32_wrap;
  return {"cpu", "recursiveReduce", nullptr, nullptr, nullptr, nullptr, t.median_ms, t.min_ms, t.max_ms,
          nullptr, sum, harness::verdict(ref.int32_wrap, sum)};
}

std::vector<json> neighbored_row(const LadderWorkspace& ws, const NestedOptions& o, cudaStream_t stream, bool& failed) {
  const LadderKernel& k = neighbored_kernel();
  const LadderCheck check = ws.run_and_check(k, o.block);
  failed |= !check.ok();
  harness::TimingStats t;
  if (check.ok()) {
    t = harness::time_on_stream(stream, o.warmup, o.reps, [&] { ws.restore(); }, [&] { ws.launch(k, o.block); });
  }
  return {"neighbored", "reduceNeighbored (fixed)", check.grid, o.block, 0, "none (host launch only)",
          timing_cell(check.ok(), t.median_ms), timing_cell(check.ok(), t.min_ms), timing_cell(check.ok(), t.max_ms),
          timing_cell(check.ok(), 1.0), check.got, check.verdict()};
}

std::vector<json> nested_row(const NestedWorkspace& ws, NestedVariant v, const NestedOptions& o, cudaStream_t stream,
                             bool& failed) {
  NestedCheck check = ws.run_and_check(v);
  const uint64_t counted = check.record.launches;
  std::string verdict = check.verdict();
  harness::TimingStats t;
  if (check.ok()) {
    ws.reset_record();
    t = harness::time_on_stream(stream, o.warmup, o.reps, [&] { ws.restore(); }, [&] { ws.launch(v); });
    // The timed runs must have launched everything too: a launch that failed there would make the
    // time that of a shorter tree.
    check = ws.check_runs(v, uint64_t(o.warmup) + o.reps);
    if (!check.ok()) verdict = "timed runs: " + check.verdict();
  }
  failed |= !check.ok();
  const NestedShape& s = ws.shape();
  return {std::string(nested_row_name(v)), std::string(nested_book_name(v)), s.grid, s.block, counted,
          std::string(nested_child_stream(v)), timing_cell(check.ok(), t.median_ms),
          timing_cell(check.ok(), t.min_ms), timing_cell(check.ok(), t.max_ms), nullptr, check.got, verdict};
}

void add_notes(report::Table& table, const NestedShape& s, const harness::IntReference& ref, int reps) {
  table.notes.push_back(harness::describe_reference(ref));
  table.notes.push_back(
      "child launches: device-side launches of one run, counted on the device (an atomic add after each launch); "
      "expected grid x (log2(block) - 1) = " + std::to_string(nested_child_launches(NestedVariant::nested, s.grid, s.block)) +
      " for nested and nestedNosync, log2(block) - 1 = " +
      std::to_string(nested_child_launches(NestedVariant::nested2, s.grid, s.block)) + " for nested2");
  table.notes.push_back(
      "times: median of " + std::to_string(reps) +
      " runs, CUDA events around the host's launch of the top grid; the stop event completes only after the "
      "whole launch tree (a grid completes after its children, and its tail launches run before the stream "
      "moves on); the input is restored, untimed, before every run");
  table.notes.push_back("x neighbored: the row's median time / neighbored's");
  if (s.padded_n() != s.n) {
    table.notes.push_back("the nested rows pad n = " + std::to_string(s.n) + " with zeros to grid x block = " +
                          std::to_string(s.padded_n()) + " (they halve whole blocks); neighbored bounds its reads by n");
  }
}

}  // namespace

harness::RunOutcome run_nested(const NestedOptions& o) {
  validate_nested_options(o);
  harness::RunOutcome out;
  const uint64_t seed = o.seed.value_or(harness::fresh_seed());
  // Never 0: the padding is 0, so a dropped or double-counted element always changes the sum.
  const std::vector<int> data = harness::random_ints(o.n, seed, 1, 255);
  const harness::IntReference ref = harness::int_reference(serial_sum(data.data(), data.size()));
  const NestedShape shape = nested_shape(o.n, o.block);

  report::Report& r = out.report;
  r.preamble.push_back("warpfold nested: n = " + std::to_string(o.n) + ", grid " + std::to_string(shape.grid) +
                       ", block " + std::to_string(o.block) + ", " + std::to_string(o.reps) +
                       " reps, data uniform 1..255, seed " + std::to_string(seed));
  r.meta["command"] = "nested";
  r.meta["n"] = o.n;
  r.meta["grid"] = shape.grid;
  r.meta["block"] = o.block;
  r.meta["reps"] = o.reps;
  r.meta["seed"] = seed;
  r.meta["exact_sum"] = ref.exact;
  r.meta["overflows_int32"] = ref.overflows_int32;

  report::Table table;
  table.title = "nested reduction (dynamic parallelism, CDP2)";
  table.columns = nested_columns();
  table.add_row(cpu_row(data, ref, o.reps, out.check_failed));
  add_notes(table, shape, ref, o.reps);

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) {
    book::add_lesson_book_columns(table, "nested");
    r.tables.push_back(std::move(table));
    return out;
  }
  out.gpu_ran = true;
  // Before this run's first kernel: the slot limit is best changed while nothing runs.
  const size_t slots = ensure_launch_slots(nested_launch_slots(shape.grid, shape.block));
  r.meta["launch_slots"] = slots;
  r.meta["nesting_depth"] = nested_depth(shape.block);
  r.preamble.push_back("device-runtime launch slots (cudaLimitDevRuntimePendingLaunchCount): " + std::to_string(slots) +
                       "; deepest chain: " + std::to_string(nested_depth(shape.block)) + " grids");
  ctx.require_device_memory(LadderWorkspace::bytes_needed(o.n) + NestedWorkspace::bytes_needed(o.n, o.block),
                            "n = " + std::to_string(o.n));

  double neighbored_ms = 0;
  {
    const LadderWorkspace ladder(data, ref.exact, ctx.stream());
    table.add_row(neighbored_row(ladder, o, ctx.stream(), out.check_failed));
    const json& median = table.rows.back()[kMedian];
    if (median.is_number()) neighbored_ms = median.get<double>();
  }
  const NestedWorkspace ws(data, ref.exact, o.block, ctx.stream());
  for (NestedVariant v : kNestedVariants) {
    auto row = nested_row(ws, v, o, ctx.stream(), out.check_failed);
    if (neighbored_ms > 0 && row[kMedian].is_number()) row[kVsNeighbored] = row[kMedian].get<double>() / neighbored_ms;
    table.add_row(std::move(row));
  }
  if (ref.overflows_int32) table.notes.push_back("GPU rows are int32 kernels: checked against the int32 wrap");
  book::add_lesson_book_columns(table, "nested");
  r.tables.push_back(std::move(table));
  return out;
}

}  // namespace warpfold::lab
