#include "lab/device_query/info_run.hpp"

#include "lab/device_query/kernel_catalog.hpp"
#include "lab/device_query/occupancy.hpp"
#include "harness/run_context.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace warpfold::lab {
namespace {

using nlohmann::json;

// Keeps tables and JSON readable: 91.95402298850574 prints as 91.95.
double round2(double v) { return std::round(v * 100) / 100; }

std::string dims(const int (&d)[3]) {
  return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
}

struct Fact {
  const char* key;       // JSON key in meta.device_query
  const char* property;  // as simpleDeviceQuery words it, where it prints it
  json value;
  const char* unit;
};

std::vector<Fact> device_facts(const DeviceFacts& facts) {
  const harness::DeviceSummary& d = facts.summary;
  const harness::DeviceLimits& l = facts.limits;
  const double kib = 1024.0, mib = 1024.0 * 1024.0, gib = mib * 1024.0;
  return {
      {"name", "Device 0", d.name, ""},
      {"compute_capability", "Compute capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor), ""},
      {"sm_count", "Number of multiprocessors", d.sm_count, ""},
      {"constant_memory_kib", "Total amount of constant memory", round2(l.constant_mem_bytes / kib), "KB"},
      {"shared_memory_per_block_kib", "Total amount of shared memory per block", round2(l.shared_mem_per_block_bytes / kib), "KB"},
      {"shared_memory_per_sm_kib", "Shared memory per multiprocessor", round2(l.shared_mem_per_sm_bytes / kib), "KB"},
      {"registers_per_block", "Total number of registers available per block", l.registers_per_block, ""},
      {"registers_per_sm", "Registers per multiprocessor", l.registers_per_sm, ""},
      {"warp_size", "Warp size", l.warp_size, "threads"},
      {"max_threads_per_block", "Maximum number of threads per block", l.max_threads_per_block, ""},
      {"max_threads_per_sm", "Maximum number of threads per multiprocessor", l.max_threads_per_sm, ""},
      {"max_warps_per_sm", "Maximum number of warps per multiprocessor", l.max_warps_per_sm(), ""},
      {"max_blocks_per_sm", "Maximum resident blocks per multiprocessor", l.max_blocks_per_sm, ""},
      {"max_block_dims", "Maximum block dimensions", dims(l.max_block_dim), "threads"},
      {"max_grid_dims", "Maximum grid dimensions", dims(l.max_grid_dim), "blocks"},
      {"sm_clock_mhz", "SM clock", round2(d.sm_clock_khz / 1e3), "MHz"},
      {"memory_clock_mhz", "Memory clock", round2(d.mem_clock_khz / 1e3), "MHz"},
      {"memory_bus_bits", "Memory bus width", d.mem_bus_width_bits, "bits"},
      {"theoretical_gbps", "Theoretical bandwidth (2 x memory clock x bus width)",
       round2(harness::theoretical_bandwidth_gbps(d.mem_clock_khz, d.mem_bus_width_bits)), "GB/s"},
      {"measured_read_gbps", "Read bandwidth measured now", round2(facts.measured_gbps), "GB/s"},
      {"l2_mib", "L2 cache", round2(d.l2_bytes / mib), "MiB"},
      {"global_memory_gib", "Global memory", round2(d.global_mem_bytes / gib), "GiB"},
  };
}

report::Table device_table(const std::vector<Fact>& facts) {
  report::Table t;
  t.title = "device query (the book's simpleDeviceQuery, and more)";
  t.columns = {{"property", "property"}, {"value", "value", 2}, {"unit", "unit"}};
  for (const Fact& f : facts) t.add_row({f.property, f.value, f.unit});
  t.notes.push_back("theoretical bandwidth: 2 transfers per clock (double data rate) x memory clock x bus width / 8, "
                    "in 1e9 bytes per second");
  return t;
}

report::Table occupancy_table(const InfoOptions& o, const harness::DeviceLimits& limits) {
  report::Table t;
  t.title = "theoretical occupancy of the lab's kernels (% of the SM's " + std::to_string(limits.max_warps_per_sm()) +
            " warp slots), by block size";
  t.columns = {{"kernel", "kernel"},
               {"lesson", "lesson"},
               {"registers", "regs/thread"},
               {"static_shared_bytes", "static smem B"},
               {"local_bytes", "local B/thread"},
               {"max_threads_per_block", "max threads/block"}};
  for (int b : o.block_sizes) t.columns.push_back({"occupancy_pct_" + std::to_string(b), "@" + std::to_string(b), 0});
  t.columns.push_back({"limited_by", "limited by"});
  const cudaOccDeviceProp device = occupancy_device(0);
  for (const LabKernel& k : lab_kernels()) {
    const KernelResources res = kernel_resources(k.function);
    std::vector<json> row{k.name, k.lesson, res.registers_per_thread, res.static_shared_bytes,
                          res.local_bytes_per_thread, res.max_threads_per_block};
    std::vector<std::pair<int, std::string>> limiter;
    for (int b : o.block_sizes) {
      const auto occ = occupancy_at(k.function, b, limits);
      row.push_back(occ ? json(100 * occ->fraction) : json(nullptr));
      const auto bounds = occ ? block_limits(device, res, b) : std::nullopt;
      limiter.emplace_back(b, bounds ? limited_by_text(*bounds) : "");
    }
    row.push_back(limited_by_ranges(limiter));
    t.add_row(std::move(row));
  }
  t.notes.push_back("cudaOccupancyMaxActiveBlocksPerMultiprocessor with no dynamic shared memory: resident blocks x "
                    "warps per block / max warps per SM; '-': more threads than the kernel can launch with");
  t.notes.push_back("limited by: the resource that stops one more block fitting on an SM (registers, shared memory, "
                    "block slots or warps), from the CUDA occupancy calculator (cuda_occupancy.h), at the block "
                    "sizes after '@'");
  t.notes.push_back("regs, smem, local: cudaFuncGetAttributes; reduceCompleteUnroll is shown as instantiated for 512 "
                    "threads; -G kernels are the device-debug build of `warpfold divergence`");
  t.notes.push_back("theoretical occupancy is an upper bound; the achieved figure (the book's achieved_occupancy) is "
                    "ncu's sm__warps_active.avg.pct_of_peak_sustained_active");
  return t;
}

}  // namespace

void validate_info_options(const InfoOptions& o) {
  if (!(o.latency.arithmetic_cycles > 0) || !(o.latency.memory_cycles > 0)) {
    throw std::invalid_argument("latencies must be positive numbers of cycles");
  }
}

report::Table little_law_table(const LatencyAssumptions& latency, const DeviceFacts* device) {
  report::Table t;
  t.title = "Little's law: parallelism needed to hide latency (latency x throughput)";
  t.columns = {{"case", "case"},
               {"latency_cycles", "latency (cycles)", 0},
               {"throughput", "throughput", 2},
               {"throughput_unit", "unit"},
               {"in_flight", "in flight", 0},
               {"in_flight_unit", "unit"},
               {"warps_per_sm_needed", "warps/SM needed", 1},
               {"max_warps_per_sm", "max warps/SM"}};
  const int warp = device ? device->limits.warp_size : 32;
  auto arithmetic = [&](const std::string& label, double cycles, double ops, int max_warps) {
    const ArithmeticParallelism p = arithmetic_parallelism(cycles, ops, warp);
    t.add_row({label, cycles, ops, "ops/cycle/SM", p.ops_in_flight_per_sm, "ops per SM", p.warps_per_sm, max_warps});
  };
  auto memory = [&](const std::string& label, double cycles, double gbps, double clock_mhz, int sms, int max_warps) {
    const MemoryParallelism p = memory_parallelism(cycles, gbps, clock_mhz, 4, warp, sms);
    t.add_row({label, cycles, p.bytes_per_cycle, "B/cycle", p.bytes_in_flight, "bytes on the device", p.warps_per_sm,
               max_warps});
  };
  // The book's worked examples, with its own figures.
  arithmetic("book: Fermi, FP32 multiply-add", 20, 32, 48);
  arithmetic("book: Kepler, FP32 multiply-add", 20, 192, 64);
  memory("book: Fermi, memory, 144 GB/s at 1566 MHz, 16 SMs", 800, 144, 1566, 16, 48);
  memory("book: Kepler K20X, memory, 250 GB/s at 2600 MHz, 15 SMs", 800, 250, 2600, 15, 64);
  if (device) {
    const harness::DeviceSummary& d = device->summary;
    const int max_warps = device->limits.max_warps_per_sm();
    const double clock_mhz = d.mem_clock_khz / 1e3;
    const std::string sm = "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
    if (const int ops = fp32_ops_per_cycle_per_sm(d.cc_major, d.cc_minor)) {
      arithmetic("this device (" + sm + "), FP32 multiply-add", latency.arithmetic_cycles, ops, max_warps);
    } else {
      t.notes.push_back("FP32 throughput of " + sm + " is not in warpfold's table: no arithmetic row for this device");
    }
    memory("this device, memory at the theoretical bandwidth", latency.memory_cycles,
           harness::theoretical_bandwidth_gbps(d.mem_clock_khz, d.mem_bus_width_bits), clock_mhz, d.sm_count,
           max_warps);
    memory("this device, memory at the bandwidth measured now", latency.memory_cycles, device->measured_gbps,
           clock_mhz, d.sm_count, max_warps);
  }
  t.notes.push_back("arithmetic: ops in flight per SM = latency x ops per cycle per SM; warps = ops / 32 (one op per "
                    "thread per instruction)");
  t.notes.push_back("memory: bytes per cycle = bandwidth / memory clock; bytes in flight = latency x bytes per cycle, "
                    "for the whole device; warps per SM at 4 bytes (one float) in flight per thread");
  t.notes.push_back("warps/SM needed above max warps/SM: threads alone cannot hide the latency; each thread must keep "
                    "more in flight (independent instructions, several loads)");
  char cycles[200];
  std::snprintf(cycles, sizeof cycles,
                "this device's rows assume %g cycles per arithmetic op and %g per memory access (the book's figures "
                "for Fermi and Kepler unless --arith-latency / --mem-latency say otherwise)",
                latency.arithmetic_cycles, latency.memory_cycles);
  t.notes.push_back(cycles);
  return t;
}

harness::RunOutcome run_info(const InfoOptions& o) {
  validate_info_options(o);
  harness::RunOutcome out;
  report::Report& r = out.report;
  r.preamble.push_back("warpfold info: device query, latency hiding (Little's law) and occupancy");
  r.meta["command"] = "info";
  r.meta["arith_latency_cycles"] = o.latency.arithmetic_cycles;
  r.meta["mem_latency_cycles"] = o.latency.memory_cycles;

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) {
    r.tables.push_back(little_law_table(o.latency, nullptr));
    return out;
  }
  out.gpu_ran = true;
  const DeviceFacts facts{ctx.device(), harness::query_device_limits(0), ctx.read_bandwidth_gbps()};

  const std::vector<Fact> query = device_facts(facts);
  for (const Fact& f : query) r.meta["device_query"][f.key] = f.value;
  r.tables.push_back(device_table(query));
  r.tables.push_back(little_law_table(o.latency, &facts));
  r.tables.push_back(occupancy_table(o, facts.limits));
  return out;
}

}  // namespace warpfold::lab
