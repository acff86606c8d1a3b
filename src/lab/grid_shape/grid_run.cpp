#include "lab/grid_shape/grid_run.hpp"

#include "harness/host_memory.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/random_data.hpp"
#include "lab/device_query/occupancy.hpp"
#include "lab/grid_shape/matrix_workspace.hpp"
#include "lab/grid_shape/sum_matrix_launch.hpp"
#include "lab/warp_partition/warp_model.hpp"
#include "lab/repetitions.hpp"
#include "harness/run_context.hpp"
#include "lab/book/book_compare.hpp"

#include <warpfold/error.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace warpfold::lab {
namespace {

using nlohmann::json;

enum Col { kBlock, kGrid, kThreads, kIdleLanes, kMedian, kMin, kMax, kGbps, kPctPeak, kOccupancy, kBlocksPerSm, kCheck, kBest };

std::vector<report::Column> grid_columns() {
  return {{"block", "block"},         {"grid", "grid"},
          {"threads", "threads/block"}, {"idle_lanes", "idle lanes/block"},
          {"median_ms", "median ms", 3},
          {"min_ms", "min ms", 3},      {"max_ms", "max ms", 3},
          {"gbps", "GB/s", 1},          {"pct_peak", "% peak", 1},
          {"occupancy_pct", "occupancy %", 1}, {"blocks_per_sm", "blocks/SM"},
          {"check", "check"},           {"best", "best"}};
}

std::vector<std::string> grid_notes(const GridOptions& o) {
  return {"grid = (ceil(nx / block.x), ceil(ny / block.y)), as the seed",
          "ms: median, min and max of " + std::to_string(o.reps) + " CUDA-event timings after " +
              std::to_string(o.warmup) + " warm-up launches",
          "GB/s: 3 matrices × 4 bytes × nx × ny / median (reads A and B, writes C); % peak: against the read "
          "bandwidth measured in this run",
          "occupancy: theoretical, from cudaOccupancyMaxActiveBlocksPerMultiprocessor (active warps / max warps "
          "per SM); the seed's nvprof achieved_occupancy is ncu's sm__warps_active.avg.pct_of_peak_sustained_active",
          "idle lanes: lanes of the block's last warp that hold no thread (warps x 32 - threads); a partial warp "
          "still takes a whole warp's issue slots (`warpfold warps`)",
          "check: C compared bit for bit with A + B computed on the CPU, after C was filled with NaN",
          "best: the fastest shape whose check is ok",
          "invalid configuration: the shape exceeds a launch limit of this device; the launch is tried once, its "
          "error shown, and the run goes on"};
}

// The row's first cells, known without running anything.
std::vector<json> row_head(BlockShape b, GridShape g) {
  std::vector<json> row(grid_columns().size());
  row[kBlock] = b.label();
  row[kGrid] = g.label();
  row[kThreads] = b.threads();
  row[kIdleLanes] = warp_budget(b).idle_lanes;
  return row;
}

// Tries the launch the limits forbid and says what the runtime answered.
std::string invalid_configuration(MatrixWorkspace& ws, BlockShape b, GridShape g, const std::string& why) {
  ws.launch(b, g);
  const cudaError_t rc = cudaGetLastError();  // clears the (non-sticky) launch error
  if (rc == cudaSuccess) {
    WARPFOLD_CUDA_CHECK(cudaDeviceSynchronize());  // let any fault of that launch surface here
    return "invalid configuration: " + why + " (yet the runtime accepted the launch)";
  }
  return "invalid configuration: " + why + " (launch: " + cudaGetErrorName(rc) + ")";
}

void mark_best(report::Table& t) {
  int best = -1;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& row = t.rows[i];
    if (row[kCheck] != "ok" || !row[kMedian].is_number()) continue;
    if (best < 0 || row[kMedian].get<double>() < t.rows[best][kMedian].get<double>()) best = int(i);
  }
  if (best >= 0) t.rows[best][kBest] = "best";
}

}  // namespace

void validate_grid_options(const GridOptions& o) {
  validate_matrix_size(o.nx, o.ny);
  if (o.shapes.empty()) throw std::invalid_argument("no block shapes to run");
  validate_repetitions(o.reps, o.warmup);
}

harness::RunOutcome run_grid(const GridOptions& o) {
  validate_grid_options(o);
  harness::RunOutcome out;
  report::Report& r = out.report;
  const uint64_t seed = o.seed.value_or(harness::fresh_seed());
  const double mib = double(o.nx * o.ny * sizeof(float)) / double(1 << 20);
  char line[256];
  std::snprintf(line, sizeof line,
                "warpfold grid: sumMatrixOnGPU2D on a %llu x %llu float matrix (%.0f MiB each for A, B, C), "
                "%zu block shape%s, %d reps, data (rand() & 0xFF) / 10, seed %llu",
                static_cast<unsigned long long>(o.nx), static_cast<unsigned long long>(o.ny), mib, o.shapes.size(),
                o.shapes.size() == 1 ? "" : "s", o.reps, static_cast<unsigned long long>(seed));
  r.preamble.push_back(line);
  r.meta["command"] = "grid";
  r.meta["nx"] = o.nx;
  r.meta["ny"] = o.ny;
  r.meta["reps"] = o.reps;
  r.meta["seed"] = seed;

  report::Table table;
  table.title = "grid and block shapes: sumMatrixOnGPU2D";
  table.columns = grid_columns();
  table.notes = grid_notes(o);

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) {
    // The shapes and grids still print; the limits every CUDA device shares flag the impossible ones.
    for (BlockShape b : o.shapes) {
      const GridShape g = grid_for(b, o.nx, o.ny);
      std::vector<json> row = row_head(b, g);
      if (auto why = launch_limit_violation(b, g, harness::common_cuda_limits())) row[kCheck] = "invalid configuration: " + *why;
      table.add_row(std::move(row));
    }
    book::add_lesson_book_columns(table, "grid");
    r.tables.push_back(std::move(table));
    return out;
  }
  out.gpu_ran = true;
  const std::string matrices = "a " + std::to_string(o.nx) + " x " + std::to_string(o.ny) + " matrix sum";
  ctx.require_device_memory(MatrixWorkspace::bytes_needed(o.nx, o.ny), matrices);
  const size_t host_bytes = MatrixWorkspace::host_bytes_needed(o.nx, o.ny);
  harness::require_host_memory(host_bytes, matrices);
  const double peak = ctx.read_bandwidth_gbps();
  const harness::DeviceLimits limits = harness::query_device_limits(0);
  MatrixWorkspace ws =
      harness::with_host_memory(host_bytes, matrices, [&] { return MatrixWorkspace(o.nx, o.ny, seed, ctx.stream()); });
  const double bytes = 3.0 * double(o.nx * o.ny) * sizeof(float);

  for (BlockShape b : o.shapes) {
    const GridShape g = grid_for(b, o.nx, o.ny);
    std::vector<json> row = row_head(b, g);
    if (auto why = launch_limit_violation(b, g, limits)) {
      row[kCheck] = invalid_configuration(ws, b, g, *why);
      table.add_row(std::move(row));
      continue;
    }
    const std::string check = ws.run_and_check(b, g);
    out.check_failed |= check != "ok";
    const harness::TimingStats t =
        harness::time_on_stream(ctx.stream(), o.warmup, o.reps, [] {}, [&] { ws.launch(b, g); });
    const double gbps = bytes / (t.median_ms * 1e-3) / 1e9;
    row[kMedian] = t.median_ms;
    row[kMin] = t.min_ms;
    row[kMax] = t.max_ms;
    row[kGbps] = gbps;
    row[kPctPeak] = 100 * gbps / peak;
    if (auto occ = occupancy_at(sum_matrix_function(), int(b.threads()), limits)) {
      row[kOccupancy] = 100 * occ->fraction;
      row[kBlocksPerSm] = occ->blocks_per_sm;
    }
    row[kCheck] = check;
    row[kBest] = "";
    table.add_row(std::move(row));
  }
  mark_best(table);
  book::add_lesson_book_columns(table, "grid");
  r.tables.push_back(std::move(table));
  return out;
}

}  // namespace warpfold::lab
