#include "lab/registers/register_run.hpp"

#include "harness/gpu_timer.hpp"
#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "lab/device_query/occupancy.hpp"
#include "lab/registers/register_workspace.hpp"
#include "lab/repetitions.hpp"

#include <cstdio>
#include <stdexcept>

namespace warpfold::lab {
namespace {

using nlohmann::json;
using registers::kBlock;
using registers::kValues;

enum Col {
  kKernel, kLimit, kBookFlag, kRegisters, kLocalBytes, kSharedBytes, kBlocksPerSm, kOccupancy, kLimitedBy,
  kMedian, kMin, kMax, kCheck
};

std::vector<report::Column> registers_columns() {
  return {{"kernel", "kernel"},
          {"limit", "register limit"},
          {"book_flag", "book's flag"},
          {"registers", "regs/thread"},
          {"local_bytes", "local B/thread"},
          {"shared_bytes", "smem B/block"},
          {"blocks_per_sm", "blocks/SM"},
          {"occupancy_pct", "occupancy %", 1},
          {"limited_by", "limited by"},
          {"median_ms", "median ms", 3},
          {"min_ms", "min ms", 3},
          {"max_ms", "max ms", 3},
          {"check", "check"}};
}

std::vector<std::string> registers_notes(const RegistersOptions& o) {
  return {"every kernel: " + std::to_string(kValues) + " values per thread mixed for " +
              std::to_string(registers::kRounds) + " rounds and folded into one output; " + std::to_string(kBlock) +
              " threads per block",
          "register limit: __maxnreg__(N) caps one kernel as `nvcc -maxrregcount=N` (the book's flag) caps a "
          "whole file; __launch_bounds__(threads, B) asks for B resident blocks and lets the compiler pick the cap",
          "regs, local (spill and stack bytes per thread), smem: cudaFuncGetAttributes",
          "occupancy: theoretical, resident blocks x warps per block / max warps per SM "
          "(cudaOccupancyMaxActiveBlocksPerMultiprocessor); achieved: `warpfold profile registers`",
          "limited by: the resource that stops one more block fitting on an SM (cuda_occupancy.h)",
          "ms: median, min and max of " + std::to_string(o.reps) + " CUDA-event timings after " +
              std::to_string(o.warmup) + " warm-up launches",
          "check: every output compared with the CPU's, the output preset to the complement of the expected one"};
}

std::vector<json> row_head(const registers::RegisterVariant& v) {
  std::vector<json> row(registers_columns().size());
  row[kKernel] = v.kernel;
  row[kLimit] = v.limit;
  row[kBookFlag] = v.book_flag;
  return row;
}

// The variant's resources and occupancy at kBlock threads.
void fill_resources(std::vector<json>& row, const void* function, const harness::DeviceLimits& limits,
                    const cudaOccDeviceProp& device) {
  const KernelResources res = kernel_resources(function);
  row[kRegisters] = res.registers_per_thread;
  row[kLocalBytes] = res.local_bytes_per_thread;
  row[kSharedBytes] = res.static_shared_bytes;
  if (const auto occ = occupancy_at(function, kBlock, limits)) {
    row[kBlocksPerSm] = occ->blocks_per_sm;
    row[kOccupancy] = 100 * occ->fraction;
  }
  if (const auto bounds = block_limits(device, res, kBlock)) row[kLimitedBy] = limited_by_text(*bounds);
}

// The mixing, written plainly: value i of a thread becomes v[i] * m + (v[i + 1] ^ (v[i + 17] >> 3)),
// indices modulo the count, in order of i, each round.
uint32_t reference_thread(std::vector<uint32_t>& v) {
  const size_t count = v.size();
  for (int round = 0; round < registers::kRounds; ++round) {
    for (size_t i = 0; i < count; ++i) {
      v[i] = v[i] * registers::kMultiplier + (v[(i + 1) % count] ^ (v[(i + 17) % count] >> 3));
    }
  }
  uint32_t folded = 0;
  for (size_t i = 0; i < count; ++i) folded += v[i] * uint32_t(2 * i + 1);
  return folded;
}

}  // namespace

void validate_registers_options(const RegistersOptions& o) {
  if (o.n < 1 || o.n > kMaxRegisterThreads) {
    throw std::invalid_argument("n = " + std::to_string(o.n) + " threads is out of range: give 1 to 2^24 (" +
                                std::to_string(kValues) + " inputs each)");
  }
  validate_repetitions(o.reps, o.warmup);
}

std::vector<uint32_t> registers_reference(const std::vector<uint32_t>& in, uint64_t n) {
  if (in.size() != n * kValues) throw std::invalid_argument("registers_reference: the input is not 48 values per thread");
  std::vector<uint32_t> out(n), v(kValues);
  for (uint64_t t = 0; t < n; ++t) {
    for (int j = 0; j < kValues; ++j) v[j] = in[j * n + t];
    out[t] = reference_thread(v);
  }
  return out;
}

std::string compare_outputs(const std::vector<uint32_t>& expected, const std::vector<uint32_t>& got) {
  if (expected.size() != got.size()) return "WRONG: " + std::to_string(got.size()) + " outputs for " +
                                            std::to_string(expected.size()) + " threads";
  uint64_t wrong = 0, first = 0;
  for (uint64_t t = expected.size(); t-- > 0;) {
    if (expected[t] != got[t]) ++wrong, first = t;
  }
  if (wrong == 0) return "ok";
  char buf[200];
  std::snprintf(buf, sizeof buf, "WRONG at thread %llu: expected %u got %u (%llu of %zu outputs)",
                static_cast<unsigned long long>(first), expected[first], got[first],
                static_cast<unsigned long long>(wrong), expected.size());
  return buf;
}

harness::RunOutcome run_registers(const RegistersOptions& o) {
  validate_registers_options(o);
  harness::RunOutcome out;
  report::Report& r = out.report;
  const uint64_t seed = o.seed.value_or(harness::fresh_seed());
  char line[256];
  std::snprintf(line, sizeof line,
                "warpfold registers: %llu threads x %d random 32-bit values, %d reps, seed %llu",
                static_cast<unsigned long long>(o.n), kValues, o.reps, static_cast<unsigned long long>(seed));
  r.preamble.push_back(line);
  r.meta["command"] = "registers";
  r.meta["n"] = o.n;
  r.meta["block"] = kBlock;
  r.meta["values_per_thread"] = kValues;
  r.meta["reps"] = o.reps;
  r.meta["seed"] = seed;

  report::Table table;
  table.title = "resource-limited occupancy: one computation under register limits";
  table.columns = registers_columns();
  table.notes = registers_notes(o);

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) {  // the variants and the book's flags still print
    for (const auto& v : registers::register_variants()) table.add_row(row_head(v));
    r.tables.push_back(std::move(table));
    return out;
  }
  out.gpu_ran = true;
  const std::string what = std::to_string(o.n) + " threads of the register lesson";
  ctx.require_device_memory(RegisterWorkspace::bytes_needed(o.n), what);
  const harness::DeviceLimits limits = harness::query_device_limits(0);
  const cudaOccDeviceProp device = occupancy_device(0);
  RegisterWorkspace ws(o.n, seed, ctx.stream());
  for (const auto& v : registers::register_variants()) {
    std::vector<json> row = row_head(v);
    fill_resources(row, v.function, limits, device);
    const std::string check = ws.run_and_check(v);
    out.check_failed |= check != "ok";
    const harness::TimingStats t = harness::time_on_stream(ctx.stream(), o.warmup, o.reps, [] {}, [&] { ws.launch(v); });
    row[kMedian] = t.median_ms;
    row[kMin] = t.min_ms;
    row[kMax] = t.max_ms;
    row[kCheck] = check;
    table.add_row(std::move(row));
  }
  r.tables.push_back(std::move(table));
  return out;
}

}  // namespace warpfold::lab
