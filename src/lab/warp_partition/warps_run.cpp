#include "lab/warp_partition/warps_run.hpp"

#include "harness/device_limits.hpp"
#include "harness/run_context.hpp"
#include "lab/warp_partition/warp_model.hpp"
#include "lab/warp_partition/warp_record.hpp"

#include <stdexcept>

namespace warpfold::lab {
namespace {

using nlohmann::json;

enum SummaryCol { kShape, kLayout, kThreads, kWarps, kLanes, kIdle, kLaneUse, kCheck };

report::Table summary_table() {
  report::Table t;
  t.title = "warps per block: the partial last warp";
  t.columns = {{"block", "block"},   {"layout", "layout"},     {"threads", "threads"},
               {"warps", "warps"},   {"lanes", "lanes"},       {"idle_lanes", "idle lanes"},
               {"lane_use_pct", "lane use %", 1}, {"check", "check"}};
  t.notes = {"warps = ceil(threads / 32); lanes = warps x 32: a partial warp still takes a whole warp's slot, "
             "registers and issue cycles",
             "check: the warps measured on the GPU (each thread's lane, its warp's ticket and __activemask()) against "
             "the rule linear = threadIdx.y x blockDim.x + threadIdx.x, warp = linear / 32, lane = linear % 32, in "
             "every block launched"};
  return t;
}

report::Table slices_table(bool measured) {
  report::Table t;
  t.title = measured ? "how threads map to warps, measured (block 0)"
                     : "how threads map to warps, by the rule (no CUDA device to measure)";
  t.columns = {{"block", "block"},
               {"warp", "warp"},
               {"first_thread", "first (x,y)"},
               {"last_thread", "last (x,y)"},
               {"rows", "rows (y)"},
               {"active_lanes", "active lanes"},
               {"active_mask", "__activemask()"},
               {"idle_lanes", "idle lanes"}};
  t.notes = {"(x,y) = (threadIdx.x, threadIdx.y); a 2-D block's rows are laid end to end, so a warp may hold the "
             "end of one row and the start of the next"};
  return t;
}

void add_slices(report::Table& t, BlockShape b, const std::vector<WarpSlice>& warps) {
  for (size_t w = 0; w < warps.size(); ++w) {
    const WarpSlice& s = warps[w];
    const unsigned y0 = s.first / b.x, y1 = s.last / b.x;
    t.add_row({b.label(), w, thread_label(b, s.first), thread_label(b, s.last),
               y0 == y1 ? std::to_string(y0) : std::to_string(y0) + "-" + std::to_string(y1), s.lanes(),
               mask_text(s.mask), kWarpSize - s.lanes()});
  }
}

std::vector<json> summary_row(BlockShape b) {
  const WarpBudget budget = warp_budget(b);
  return {b.label(), b.y == 1 ? "1-D" : "2-D", b.threads(), budget.warps, budget.lanes, budget.idle_lanes,
          budget.lane_use_pct(), nullptr};
}

// Every block's measured warps against the rule: "ok" or the first difference.
std::string check_blocks(const std::vector<LaneRecord>& records, BlockShape b, unsigned blocks,
                         std::vector<WarpSlice>& block0) {
  const std::vector<WarpSlice> model = model_warps(b);
  for (unsigned i = 0; i < blocks; ++i) {
    std::vector<WarpSlice> measured;
    try {
      measured = measured_warps(records, i, b);
    } catch (const std::runtime_error& e) {
      return std::string("WRONG: ") + e.what();
    }
    if (i == 0) block0 = measured;
    const std::string check = compare_warps(model, measured, b);
    if (check != "ok") return check + " (block " + std::to_string(i) + ")";
  }
  return "ok";
}

}  // namespace

void validate_warps_options(const WarpsOptions& o) {
  if (o.shapes.empty()) throw std::invalid_argument("no block shapes to run");
  if (o.blocks < 1 || o.blocks > 64) throw std::invalid_argument("blocks must be 1 to 64");
  for (BlockShape b : o.shapes) {
    if (auto why = launch_limit_violation(b, {o.blocks, 1}, harness::common_cuda_limits())) {
      throw std::invalid_argument("block " + b.label() + " cannot be launched: " + *why);
    }
  }
}

harness::RunOutcome run_warps(const WarpsOptions& o) {
  validate_warps_options(o);
  harness::RunOutcome out;
  report::Report& r = out.report;
  r.preamble.push_back("warpfold warps: how threads map to warps, " + std::to_string(o.shapes.size()) +
                       " block shape(s), " + std::to_string(o.blocks) + " blocks each");
  r.meta["command"] = "warps";
  r.meta["blocks"] = o.blocks;
  r.meta["warp_size"] = kWarpSize;

  report::Table summary = summary_table();
  harness::RunContext ctx = harness::RunContext::open(r);
  report::Table slices = slices_table(ctx.has_device());
  out.gpu_ran = ctx.has_device();
  for (BlockShape b : o.shapes) {
    std::vector<json> row = summary_row(b);
    std::vector<WarpSlice> warps = model_warps(b);
    if (ctx.has_device()) {
      const std::string check = check_blocks(record_warps(b, o.blocks, ctx.stream()), b, o.blocks, warps);
      out.check_failed |= check != "ok";
      row[kCheck] = check;
    }
    summary.add_row(std::move(row));
    add_slices(slices, b, warps);
  }
  r.tables.push_back(std::move(summary));
  r.tables.push_back(std::move(slices));
  return out;
}

}  // namespace warpfold::lab
