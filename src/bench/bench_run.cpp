#include "bench/bench_run.hpp"

#include "harness/host_memory.hpp"

#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/host_float_convert.hpp"
#include "harness/random_data.hpp"
#include "harness/run_context.hpp"
#include "harness/splitmix64.hpp"

#include <warpfold/detail/read_probe.cuh>  // the tuning policy, recorded with the results

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace warpfold::bench {
namespace {

using nlohmann::json;

constexpr unsigned kMaxLog2 = 34;
// Repetitions per turn for inputs past half the L2 (see the timing below).
constexpr int kSeriesTurn = 10;
// Inputs of at least this many L2s stream from DRAM: their reduces may raise the DRAM peak.
constexpr double kDramInputL2s = 8;
// Two rows at or above this share of the DRAM peak are both "at the memory limit".
constexpr double kAtMemoryLimit = 0.90;


// Host data of one element type, stored as bytes; sums/maxima of its prefixes are the references.
struct HostData {
  ElementType type;
  std::vector<unsigned char> bytes;
  template <class T> const T* as() const { return reinterpret_cast<const T*>(bytes.data()); }
};

template <class T>
void store(HostData& d, uint64_t i, const T& v) {
  std::memcpy(&d.bytes[i * sizeof(T)], &v, sizeof(T));
}

// int8: uniform in [-128, 127]; int32: uniform in [-2^20, 2^20] (int32 sums of long prefixes
// wrap: compared with the wrap); half, float, double: uniform in [-1, 1], rounded to the type.
// Never zeros.
HostData make_data(ElementType type, uint64_t n, uint64_t seed) {
  HostData d{type, std::vector<unsigned char>(n * element_bytes(type))};
  harness::splitmix64 rng{seed};
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    const double unit = double(r >> 11) * 0x1.0p-53 * 2 - 1;  // [-1, 1)
    switch (type) {
      case ElementType::int8: store(d, i, int8_t(r & 0xff)); break;
      case ElementType::int32: store(d, i, int32_t(int64_t(r % (2u << 20)) - (1 << 20))); break;
      case ElementType::float16: store(d, i, harness::from_double<__half>(unit)); break;
      case ElementType::float32: store(d, i, float(unit)); break;
      case ElementType::float64: store(d, i, unit); break;
    }
  }
  return d;
}

// The reference for a prefix of n elements, and how far a correct result may be from it.
struct Reference {
  double value = 0;       // exact (integers: the accumulator's wrap of the exact sum) or long-double sum
  double abs_sum = 0;     // Σ|x| for the float error bounds
  uint32_t word_xor = 0;  // the XOR of the prefix's 32-bit words (the no-combine row's result)
  double cpu_ms = 0;      // time the CPU took for this prefix
};

template <class T>
Reference cpu_reference(const HostData& d, uint64_t n, ReduceOp op) {
  const T* x = d.as<T>();
  Reference r;
  const auto t0 = std::chrono::steady_clock::now();
  if (op == ReduceOp::max) {
    double m = -INFINITY;
    for (uint64_t i = 0; i < n; ++i) m = std::max(m, harness::to_double(x[i]));
    r.value = m;
  } else if constexpr (std::is_integral_v<T>) {
    int64_t s = 0;
    for (uint64_t i = 0; i < n; ++i) s += x[i];
    // int32 sums wrap in int32; int8 sums accumulate in int64, where the bench's sizes cannot wrap.
    r.value = sizeof(T) == 4 ? double(int32_t(uint32_t(uint64_t(s)))) : double(s);
  } else {
    long double s = 0, a = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const long double v = harness::to_double(x[i]);
      s += v;
      a += std::fabs(v);
    }
    r.value = double(s);
    r.abs_sum = double(a);
  }
  r.cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The XOR of the 32-bit words of the whole 16-byte vectors in the first `bytes` bytes: the
// no-combine row's result (it reads whole vectors only; below 16 bytes, none, and the XOR is 0).
uint32_t word_xor(const HostData& d, uint64_t bytes) {
  const uint64_t whole_vectors = bytes / 16 * 16;
  uint32_t x = 0;
  for (uint64_t i = 0; i < whole_vectors; i += 4) {
    uint32_t w;
    std::memcpy(&w, &d.bytes[i], 4);
    x ^= w;
  }
  return x;
}

Reference reference_for(const HostData& d, uint64_t n, ReduceOp op) {
  switch (d.type) {
    case ElementType::int8: return cpu_reference<int8_t>(d, n, op);
    case ElementType::int32: return cpu_reference<int32_t>(d, n, op);
    case ElementType::float16: return cpu_reference<__half>(d, n, op);
    case ElementType::float32: return cpu_reference<float>(d, n, op);
    case ElementType::float64: return cpu_reference<double>(d, n, op);
  }
  return {};
}

// "ok" or "WRONG ...". Integer results and maxima must be exact. Floating-point sums: warpfold
// within its documented bound ((n/256 + 25)·u·Σ|x|, from its fold order); the other libraries
// within the bound that holds for any summation order, (n - 1)·u·Σ|x|; u the accumulator's.
std::string check(Library lib, ElementType type, ReduceOp op, uint64_t n, const Reference& ref, double got) {
  if (lib == Library::no_combine) {
    if (got == double(ref.word_xor)) return "ok";
    return "WRONG XOR expected " + json(ref.word_xor).dump() + " got " + json(got).dump();
  }
  const double u = accumulator_unit_roundoff(type, op);
  if (u == 0 || op == ReduceOp::max) {
    if (got == ref.value) return "ok";
    return "WRONG expected " + json(ref.value).dump() + " got " + json(got).dump();
  }
  const bool ours = lib == Library::warpfold || lib == Library::warpfold_again || lib == Library::warpfold_reproducible;
  const double terms = ours ? double(n / 256 + 25) : double(n - 1);
  const double bound = terms * u * ref.abs_sum;
  const double err = std::fabs(got - ref.value);
  if (err <= bound) return "ok";
  return "WRONG error " + json(err).dump() + " > bound " + json(bound).dump();
}

std::vector<report::Column> columns() {
  return {{"n", "n"},
          {"log2_n", "log2 n"},
          {"type", "type"},
          {"accumulator", "acc"},
          {"op", "op"},
          {"library", "library"},
          {"median_us", "median us", 2},
          {"min_us", "min us", 2},
          {"max_us", "max us", 2},
          {"gbps", "GB/s", 1},
          {"peak_basis", "peak"},
          {"pct_measured_peak", "% meas. peak", 1},
          {"pct_theoretical_peak", "% theor. peak", 1},
          {"ratio_vs_cub", "vs CUB", 3},
          {"ratio_vs_cub_low", "vs CUB lo", 3},
          {"ratio_vs_cub_high", "vs CUB hi", 3},
          {"at_least_cub", ">= CUB"},
          {"x_launch_floor", "x floor", 2},
          {"x_driver_floor", "x drv floor", 2},
          {"check", "check"}};
}

// A row's place among the columns above, for the values filled in once the run's peaks are known.
size_t column_index(const std::string& key) {
  const auto cols = columns();
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].key == key) return i;
  throw std::logic_error("bench: no column " + key);
}

// What a row needs once every row is measured: its bytes, rate, and the row it is compared with.
struct RowFacts {
  size_t row;
  double bytes;
  double gbps;
  Library lib;
  long cub_row;  // the same size's CUB row (-1 for CUB's own and the CPU's)
  harness::RatioInterval vs_cub;
};

// The measured peaks: DRAM, the best of the streaming probe and every reduce over at least 8× the
// L2; the L2's own figure for inputs that stay in it (at most half of it).
void fill_peaks(harness::RunContext& ctx, report::Table& t, const std::vector<RowFacts>& facts, double theoretical) {
  const double l2 = double(ctx.device().l2_bytes);
  for (const RowFacts& f : facts) {
    if (f.lib != Library::no_combine && f.bytes >= kDramInputL2s * l2) {
      ctx.raise_read_peak(f.gbps, "a reduce over at least 8x the L2 (" + t.rows[f.row][column_index("library")].get<std::string>() +
                                      ", " + t.rows[f.row][column_index("type")].get<std::string>() + " 2^" +
                                      std::to_string(t.rows[f.row][column_index("log2_n")].get<unsigned>()) + ")");
    }
  }
  const double dram = ctx.read_bandwidth_gbps();
  const double l2_peak = ctx.l2_read_bandwidth_gbps();
  for (const RowFacts& f : facts) {
    std::vector<json>& row = t.rows[f.row];
    const bool in_l2 = 2 * f.bytes <= l2;
    row[column_index("peak_basis")] = in_l2 ? "l2" : "dram";
    row[column_index("pct_measured_peak")] = 100 * f.gbps / (in_l2 ? l2_peak : dram);
    row[column_index("pct_theoretical_peak")] = 100 * f.gbps / theoretical;
    if (f.cub_row < 0) continue;
    const bool both_at_limit = !in_l2 && f.gbps >= kAtMemoryLimit * dram && facts[size_t(f.cub_row)].gbps >= kAtMemoryLimit * dram;
    row[column_index("at_least_cub")] = f.vs_cub.at_least_one(both_at_limit) ? "yes" : "NO";
  }
}

// The tuning policy of warpfold's code on this device, as the JSON meta records it.
json policy_json(unsigned arch) {
  const detail::read_probe::reduce_policy p = detail::read_probe::policy_for_arch(arch);
  return {{"code_arch", arch},
          {"policy_arch", p.arch},
          {"threads", p.threads},
          {"vector_bytes", p.vector_bytes},
          {"narrow_vectors", p.narrow_vectors},
          {"wide_vectors", p.wide_vectors},
          {"narrow_min_blocks", p.narrow_min_blocks},
          {"wide_min_blocks", p.wide_min_blocks},
          {"bulk_min_blocks", p.bulk_min_blocks},
          {"bulk_stages", p.bulk_stages},
          {"single_block_max_tiles", p.single_block_max_tiles},
          {"warp_combine_max_blocks", p.warp_combine_max_blocks},
          {"combine_words_in_flight", p.combine_words_in_flight},
          {"wide_above_bytes", p.wide_above_bytes},
          {"bulk_above_bytes", p.bulk_above_bytes}};
}

std::string policy_line(const json& p) {
  char line[300];
  std::snprintf(line, sizeof line,
                "warpfold policy (code for sm_%u, policy of sm_%u): %u threads, tiles of %u/%u vectors (narrow/wide), "
                "register budgets %u/%u/%u blocks per SM (narrow/wide/bulk), %u bulk stages, wide above %llu MiB, "
                "bulk above %llu MiB",
                p["code_arch"].get<unsigned>() / 10, p["policy_arch"].get<unsigned>() / 10, p["threads"].get<unsigned>(),
                p["narrow_vectors"].get<unsigned>(), p["wide_vectors"].get<unsigned>(),
                p["narrow_min_blocks"].get<unsigned>(), p["wide_min_blocks"].get<unsigned>(),
                p["bulk_min_blocks"].get<unsigned>(), p["bulk_stages"].get<unsigned>(),
                (unsigned long long)(p["wide_above_bytes"].get<uint64_t>() >> 20),
                (unsigned long long)(p["bulk_above_bytes"].get<uint64_t>() >> 20));
  return line;
}

}  // namespace

void parse_pow2_axis(const std::string& text, BenchOptions& o) {
  auto bad = [&text]() {
    return std::invalid_argument("'" + text + "' is not a power-of-two axis: write MIN:MAX or MIN:MAX:STEP with 0 ≤ MIN ≤ MAX ≤ " +
                                 std::to_string(kMaxLog2) + " and 1 ≤ STEP ≤ " + std::to_string(kMaxLog2) +
                                 " (e.g. 10:30 or 10:30:2)");
  };
  // std::from_chars takes neither a sign nor spaces, and each field must be consumed whole, so
  // "-1", "+3", "20abc" and an empty field are refused rather than read as something else.
  std::vector<unsigned> fields;
  for (size_t begin = 0;;) {
    const size_t end = std::min(text.find(':', begin), text.size());
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + begin, text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end || begin == end) throw bad();
    fields.push_back(value);
    if (end == text.size()) break;
    begin = end + 1;
  }
  if (fields.size() != 2 && fields.size() != 3) throw bad();
  BenchOptions parsed = o;
  parsed.log2_min = fields[0];
  parsed.log2_max = fields[1];
  parsed.log2_step = fields.size() == 3 ? fields[2] : 1;
  if (!axis_is_valid(parsed)) throw bad();
  o = parsed;
}

bool axis_is_valid(const BenchOptions& o) {
  return o.log2_min <= o.log2_max && o.log2_max <= kMaxLog2 && o.log2_step >= 1 && o.log2_step <= kMaxLog2;
}

std::vector<unsigned> axis_exponents(const BenchOptions& o) {
  if (!axis_is_valid(o)) throw std::invalid_argument("bad power-of-two axis");
  std::vector<unsigned> exponents;
  // A 64-bit counter: the last step may pass log2_max by up to kMaxLog2 without wrapping around.
  for (uint64_t k = o.log2_min; k <= o.log2_max; k += o.log2_step) exponents.push_back(unsigned(k));
  return exponents;
}

harness::RunOutcome run_bench(const BenchOptions& o) {
  const std::vector<unsigned> exponents = axis_exponents(o);
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.types.empty() || o.ops.empty()) throw std::invalid_argument("no type or no operator to benchmark");

  harness::RunOutcome out;
  report::Report& r = out.report;
  const uint64_t seed = o.seed ? *o.seed : harness::fresh_seed();
  // The largest size run: 2^log2_max, or below it where the step does not land on it.
  const unsigned max_log2 = exponents.back();
  const uint64_t max_n = uint64_t(1) << max_log2;
  r.preamble.push_back("warpfold bench: n = 2^" + std::to_string(o.log2_min) + " … 2^" + std::to_string(max_log2) +
                       (o.log2_step > 1 ? " in steps of " + std::to_string(o.log2_step) : std::string()) +
                       ", " + std::to_string(o.reps) + " reps, " + (o.cold ? "cold L2 (flushed before each rep)" : "hot L2") +
                       ", seed " + std::to_string(seed));
  r.meta["command"] = "bench";
  r.meta["reps"] = o.reps;
  r.meta["cold"] = o.cold;
  r.meta["seed"] = seed;

  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) return out;
  out.gpu_ran = true;
  size_t widest = 0;
  for (auto t : o.types) widest = std::max(widest, element_bytes(t));
  const std::string largest_input = "n = 2^" + std::to_string(max_log2) + " elements of " + std::to_string(widest) + " bytes";
  ctx.require_device_memory(max_n * widest + 2 * ctx.device().l2_bytes + (256u << 20), largest_input);
  // The input of one type at a time is made on the host, then copied.
  harness::require_host_memory(max_n * widest, largest_input);
  ctx.read_bandwidth_gbps();  // the probe, before any input is allocated
  ctx.l2_read_bandwidth_gbps();
  const double theoretical = harness::theoretical_bandwidth_gbps(ctx.device().mem_clock_khz, ctx.device().mem_bus_width_bits);
  const cudaStream_t stream = ctx.stream();
  r.meta["policy"] = policy_json(warpfold_code_arch());
  r.preamble.push_back(policy_line(r.meta["policy"]));

  // The launch floor: an empty kernel, timed like every reduction, launched with <<<>>> as a
  // caller's kernel would be; beside it the same kernel launched the way warpfold launches its
  // own (the driver's path), since part of warpfold's distance to the floor is that faster launch.
  const int device = ctx.device().ordinal;
  // Both floors, in this order, are also the first runs of every size's group below.
  const std::vector<std::function<void()>> empty_launches{[&] { launch_empty_kernel(stream); },
                                                          [&] { launch_empty_kernel_as_warpfold(device, stream); }};
  const std::vector<harness::TimingStats> floors =
      harness::time_in_turns(stream, o.warmup, o.reps, 1, [] {}, empty_launches);
  const harness::TimingStats& floor = floors.at(0);
  const harness::TimingStats& driver_floor = floors.at(1);
  r.meta["launch_floor_us"] = floor.median_ms * 1e3;
  r.meta["launch_floor_driver_us"] = driver_floor.median_ms * 1e3;
  char line[200];
  std::snprintf(line, sizeof line, "launch floor (empty kernel, <<<>>>, event-timed): %.2f us median (min %.2f, max %.2f)",
                floor.median_ms * 1e3, floor.min_ms * 1e3, floor.max_ms * 1e3);
  r.preamble.push_back(line);
  std::snprintf(line, sizeof line,
                "empty kernel launched as warpfold launches (driver, cached handle): %.2f us median (min %.2f, max %.2f)",
                driver_floor.median_ms * 1e3, driver_floor.min_ms * 1e3, driver_floor.max_ms * 1e3);
  r.preamble.push_back(line);

  harness::DeviceBuffer<char> flush(o.cold ? 2 * ctx.device().l2_bytes : 0);
  int flush_value = 0;
  auto prepare = [&] {
    if (o.cold) WARPFOLD_CUDA_CHECK(cudaMemsetAsync(flush.get(), ++flush_value & 0xff, flush.bytes(), stream));
  };

  std::vector<double> floors_ms;  // the empty kernel's median at each size, timed with CUB and warpfold
  std::vector<double> driver_floors_ms;  // the same, launched as warpfold launches
  std::vector<RowFacts> facts;
  report::Table t;
  t.title = "device-wide reduce: warpfold vs CUB vs Thrust vs CPU";
  t.columns = columns();
  for (ElementType type : o.types) {
    const HostData host = harness::with_host_memory(max_n * element_bytes(type), largest_input,
                                           [&] { return make_data(type, max_n, seed ^ uint64_t(type)); });
    harness::DeviceBuffer<char> d_in(host.bytes.size());
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(d_in.get(), host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (ReduceOp op : o.ops) {
      for (unsigned k : exponents) {
        const uint64_t n = uint64_t(1) << k;
        Reference ref = reference_for(host, n, op);
        ref.word_xor = word_xor(host, n * element_bytes(type));
        const double bytes = double(n) * element_bytes(type);
        // thrust::reduce synchronises on every call, so it is timed on its own, after the others.
        // Float and double sums add two rows: warpfold timed again (the noise) and the reproducible sum.
        const bool float_sum_rows = op == ReduceOp::sum && (type == ElementType::float32 || type == ElementType::float64);
        std::vector<Library> libs{Library::cub, Library::warpfold, Library::thrust, Library::no_combine};
        if (float_sum_rows) libs.insert(libs.end(), {Library::warpfold_again, Library::warpfold_reproducible});
        std::map<Library, std::unique_ptr<ReduceRunner>> runners;
        std::map<Library, std::string> verdicts;
        std::map<Library, double> results;
        for (Library lib : libs) {
          runners[lib] = make_runner(lib, type, op, d_in.get(), n, stream);
          runners[lib]->run();  // checked before it is timed
          results[lib] = runners[lib]->result();
          verdicts[lib] = check(lib, type, op, n, ref, results[lib]);
        }
        // The second warpfold row is the same reduce: bitwise the first's result, or one is wrong.
        if (float_sum_rows && verdicts[Library::warpfold_again] == "ok" &&
            std::memcmp(&results[Library::warpfold_again], &results[Library::warpfold], sizeof(double)) != 0) {
          verdicts[Library::warpfold_again] = "WRONG differs from the warpfold row: " +
                                              json(results[Library::warpfold_again]).dump() + " against " +
                                              json(results[Library::warpfold]).dump();
        }
        for (Library lib : libs) {
          if (lib != Library::cub && lib != Library::thrust && verdicts[lib] != "ok") out.check_failed = true;
        }
        // The launch floors first, then the libraries; `timed` below follows this order.
        std::vector<std::function<void()>> group = empty_launches;
        group.insert(group.end(), {[&] { runners[Library::cub]->run(); },
                                   [&] { runners[Library::warpfold]->run(); },
                                   [&] { runners[Library::no_combine]->run(); }});
        if (float_sum_rows) {
          group.push_back([&] { runners[Library::warpfold_again]->run(); });
          group.push_back([&] { runners[Library::warpfold_reproducible]->run(); });
        }
        // CUB, warpfold, the no-combine read and the two empty kernels are timed interleaved, a
        // repetition of each per round, so that their ratios and the floor come from the same
        // moments of the machine; each round in an order of its own, since a run's time depends
        // on the run before it (harness/run_order.hpp).
        // Interleaving is fair only while the input stays in L2 whatever ran before it. Past half
        // the L2, a run's hits depend on the order of the run before, so there they take turns of
        // kSeriesTurn repetitions, each turn after an untimed one: as a caller repeating one
        // reduce would see it, and still from the same stretch of time. With --cold every
        // repetition starts from a flushed L2 and the order does not matter.
        const bool interleave = o.cold || bytes * 2 <= double(ctx.device().l2_bytes);
        std::vector<std::vector<double>> samples;
        const std::vector<harness::TimingStats> timed =
            harness::time_in_turns(stream, o.warmup, o.reps, interleave ? 1 : kSeriesTurn, prepare, group, &samples);
        if (timed.size() != group.size()) throw std::logic_error("bench: one timing per run expected");
        std::map<Library, harness::TimingStats> stats{
            {Library::cub, timed.at(2)}, {Library::warpfold, timed.at(3)}, {Library::no_combine, timed.at(4)}};
        std::map<Library, const std::vector<double>*> rounds{
            {Library::cub, &samples.at(2)}, {Library::warpfold, &samples.at(3)}, {Library::no_combine, &samples.at(4)}};
        if (float_sum_rows) {
          stats[Library::warpfold_again] = timed.at(5);
          rounds[Library::warpfold_again] = &samples.at(5);
          stats[Library::warpfold_reproducible] = timed.at(6);
          rounds[Library::warpfold_reproducible] = &samples.at(6);
        }
        stats[Library::thrust] =
            harness::time_on_stream(stream, o.warmup, o.reps, prepare, [&] { runners[Library::thrust]->run(); });
        const double floor_ms = timed.at(0).median_ms;
        const double driver_floor_ms = timed.at(1).median_ms;
        floors_ms.push_back(floor_ms);
        driver_floors_ms.push_back(driver_floor_ms);
        const long cub_row = long(t.rows.size());  // CUB's row comes first
        for (Library lib : libs) {
          const harness::TimingStats& s = stats[lib];
          const double gbps = bytes / (s.median_ms * 1e-3) / 1e9;
          // vs CUB: the median of the per-round ratios (CUB's time / this row's, the two timed in
          // the same rounds) and its bootstrap interval; Thrust, timed apart, by its medians.
          harness::RatioInterval vs{1, 1, 1};
          if (lib == Library::thrust) {
            const double m = stats[Library::cub].median_ms / s.median_ms;
            vs = {m, m, m};
          } else if (lib != Library::cub) {
            vs = harness::per_round_ratio(*rounds[Library::cub], *rounds[lib]);
          }
          facts.push_back({t.rows.size(), bytes, gbps, lib, lib == Library::cub ? -1 : cub_row, vs});
          t.add_row({n, k, to_string(type), accumulator_of(type, op), to_string(op), to_string(lib), s.median_ms * 1e3,
                     s.min_ms * 1e3, s.max_ms * 1e3, gbps, nullptr, nullptr, nullptr, vs.median,
                     lib == Library::thrust ? json(nullptr) : json(vs.low),
                     lib == Library::thrust ? json(nullptr) : json(vs.high), nullptr, s.median_ms / floor_ms,
                     s.median_ms / driver_floor_ms, verdicts[lib]});
        }
        if (o.cpu) {
          const double gbps = bytes / (ref.cpu_ms * 1e-3) / 1e9;
          t.add_row({n, k, to_string(type), accumulator_of(type, op), to_string(op), "cpu", ref.cpu_ms * 1e3, nullptr,
                     nullptr, gbps, nullptr, nullptr, nullptr, stats[Library::cub].median_ms / ref.cpu_ms, nullptr,
                     nullptr, nullptr, ref.cpu_ms / floor_ms, ref.cpu_ms / driver_floor_ms, "reference"});
        }
      }
    }
  }
  fill_peaks(ctx, t, facts, theoretical);
  t.notes.push_back("vs CUB: the median over rounds of CUB's time / the row's time, the two timed in the same rounds (above 1: faster than CUB); lo and hi: its 95% interval by bootstrap over the rounds; Thrust, timed apart, by its median");
  t.notes.push_back(">= CUB: yes where vs CUB's median is at least 1, or where both rows read at the memory limit (at least 90% of the DRAM peak) and the interval's low end is at least 0.99");
  t.notes.push_back("peak: the measured peak a row's % is of: l2 for inputs of at most half the L2 (the L2 read figure), dram otherwise (the best of the streaming probe and every reduce over at least 8x the L2)");
  t.notes.push_back("x floor: the row's median time / the launch floor timed with it (an empty kernel launched with <<<>>>, interleaved with CUB and warpfold)");
  t.notes.push_back("x drv floor: the same against the empty kernel launched as warpfold launches its own (the driver's cuLaunchKernel with a cached handle), timed in the same rounds: the floor for a caller launching that way");
  t.notes.push_back("cub, warpfold, no combine and the two empty kernels are timed interleaved, one repetition of each per round in an order that changes every round (each follows each other equally often), while the input fits in half the L2 (or with --cold); larger inputs take turns of 10 repetitions, each turn after an untimed repetition, since there each run's L2 hits depend on the run before");
  t.notes.push_back("no combine: warpfold's grid, tiles and loads, launched the same way, each block reducing what it read (XOR of 32-bit words, checked) and storing it, with no grid-wide combine: what one launch that reads the input costs; its vs CUB is the most any reduce reading the data this way could reach in this run");
  t.notes.push_back("warpfold (again): the same warpfold::reduce timed a second time in the same rounds (float and double sums), its result required bitwise equal to the warpfold row's: its distance from the first row is the run's noise");
  if (!floors_ms.empty()) {
    const auto [lo, hi] = std::minmax_element(floors_ms.begin(), floors_ms.end());
    const auto [dlo, dhi] = std::minmax_element(driver_floors_ms.begin(), driver_floors_ms.end());
    std::snprintf(line, sizeof line, "launch floor timed with each size: %.2f … %.2f us (as warpfold launches: %.2f … %.2f us)",
                  *lo * 1e3, *hi * 1e3, *dlo * 1e3, *dhi * 1e3);
    r.preamble.push_back(line);
  }
  std::snprintf(line, sizeof line, "DRAM read peak: %.0f GB/s (%s); L2 read figure %.0f GB/s",
                r.meta["peak_read_gbps"].get<double>(), r.meta["peak_source"].get<std::string>().c_str(),
                r.meta["peak_l2_read_gbps"].get<double>());
  r.preamble.push_back(line);
  t.notes.push_back("warpfold reproducible: warpfold::reproducible_sum (float and double sums), timed in the same rounds: bits that depend on the values alone, at this cost against the plain sum");
  t.notes.push_back("acc: the accumulator, the same in every library: int8 sums in int64, half sums in float, everything else in its own type; int32 sums wrap and are compared with the wrap of the exact sum");
  t.notes.push_back("thrust::reduce returns the value: its time includes its temp allocation, the copy back and the wait");
  t.notes.push_back("cpu: one pass of a plain loop (long double for floats), timed once");
  r.tables.push_back(std::move(t));
  return out;
}

}  // namespace warpfold::bench

namespace warpfold::bench {

std::string to_string(ElementType t) {
  switch (t) {
    case ElementType::int8: return "int8";
    case ElementType::int32: return "int32";
    case ElementType::float16: return "half";
    case ElementType::float32: return "float";
    case ElementType::float64: return "double";
  }
  return "?";
}

std::string to_string(ReduceOp op) { return op == ReduceOp::sum ? "sum" : "max"; }

std::string to_string(Library lib) {
  switch (lib) {
    case Library::warpfold: return "warpfold";
    case Library::cub: return "cub";
    case Library::thrust: return "thrust";
    case Library::warpfold_again: return "warpfold (again)";
    case Library::warpfold_reproducible: return "warpfold reproducible";
    case Library::no_combine: return "no combine";
  }
  return "?";
}

size_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::int8: return 1;
    case ElementType::float16: return 2;
    case ElementType::int32:
    case ElementType::float32: return 4;
    case ElementType::float64: return 8;
  }
  return 0;
}

std::string accumulator_of(ElementType t, ReduceOp op) {
  if (op == ReduceOp::sum && t == ElementType::int8) return "int64";
  if (op == ReduceOp::sum && t == ElementType::float16) return "float";
  return to_string(t);
}

double accumulator_unit_roundoff(ElementType t, ReduceOp op) {
  const std::string acc = accumulator_of(t, op);
  if (acc == "float") return std::numeric_limits<float>::epsilon() / 2;
  if (acc == "double") return std::numeric_limits<double>::epsilon() / 2;
  if (acc == "half") return 0x1p-11;
  return 0;  // integers: exact
}

}  // namespace warpfold::bench
