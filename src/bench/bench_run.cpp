#include "bench/bench_run.hpp"

#include "harness/host_memory.hpp"

#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/random_data.hpp"
#include "lab/run_context.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <memory>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

namespace warpfold::bench {
namespace {

using nlohmann::json;

constexpr unsigned kMaxLog2 = 34;
// Repetitions per turn for inputs past half the L2 (see the timing below).
constexpr int kSeriesTurn = 10;

// SplitMix64: fast enough to fill 2^30 elements in seconds.
struct splitmix64 {
  uint64_t s;
  uint64_t operator()() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Host data of one element type, stored as bytes; sums/maxima of its prefixes are the references.
struct HostData {
  ElementType type;
  std::vector<unsigned char> bytes;
  template <class T> const T* as() const { return reinterpret_cast<const T*>(bytes.data()); }
};

// int32: uniform in [-2^20, 2^20] (int32 sums of long prefixes wrap: compared with the wrap);
// float, double: uniform in [-1, 1]. Never zeros.
HostData make_data(ElementType type, uint64_t n, uint64_t seed) {
  HostData d{type, std::vector<unsigned char>(n * element_bytes(type))};
  splitmix64 rng{seed};
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    const double unit = double(r >> 11) * 0x1.0p-53 * 2 - 1;  // [-1, 1)
    switch (type) {
      case ElementType::int32: {
        const int32_t v = int32_t(int64_t(r % (2u << 20)) - (1 << 20));
        std::memcpy(&d.bytes[i * 4], &v, 4);
        break;
      }
      case ElementType::float32: {
        const float v = float(unit);
        std::memcpy(&d.bytes[i * 4], &v, 4);
        break;
      }
      case ElementType::float64: std::memcpy(&d.bytes[i * 8], &unit, 8); break;
    }
  }
  return d;
}

// The reference for a prefix of n elements, and how far a correct result may be from it.
struct Reference {
  double value = 0;       // exact (integers: the int32 wrap of the exact sum) or long-double sum
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
    T m = std::numeric_limits<T>::lowest();
    for (uint64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
    r.value = double(m);
  } else if constexpr (std::is_integral_v<T>) {
    int64_t s = 0;
    for (uint64_t i = 0; i < n; ++i) s += x[i];
    r.value = double(int32_t(uint32_t(uint64_t(s))));
  } else {
    long double s = 0, a = 0;
    for (uint64_t i = 0; i < n; ++i) {
      s += x[i];
      a += std::fabs(x[i]);
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
    case ElementType::int32: return cpu_reference<int32_t>(d, n, op);
    case ElementType::float32: return cpu_reference<float>(d, n, op);
    case ElementType::float64: return cpu_reference<double>(d, n, op);
  }
  return {};
}

double unit_roundoff(ElementType t) {
  return t == ElementType::float32 ? std::numeric_limits<float>::epsilon() / 2
                                   : std::numeric_limits<double>::epsilon() / 2;
}

// "ok" or "WRONG ...". Integer results and maxima must be exact. Float sums: warpfold within its
// documented bound ((n/256 + 25)·u·Σ|x|, from its fold order); the other libraries within the
// bound that holds for any summation order, (n - 1)·u·Σ|x|.
std::string check(Library lib, ElementType type, ReduceOp op, uint64_t n, const Reference& ref, double got) {
  if (lib == Library::no_combine) {
    if (got == double(ref.word_xor)) return "ok";
    return "WRONG XOR expected " + json(ref.word_xor).dump() + " got " + json(got).dump();
  }
  if (type == ElementType::int32 || op == ReduceOp::max) {
    if (got == ref.value) return "ok";
    return "WRONG expected " + json(ref.value).dump() + " got " + json(got).dump();
  }
  const bool is_warpfold = lib == Library::warpfold || lib == Library::warpfold_again;
  const double terms = is_warpfold ? double(n / 256 + 25) : double(n - 1);
  const double bound = terms * unit_roundoff(type) * ref.abs_sum;
  const double err = std::fabs(got - ref.value);
  if (err <= bound) return "ok";
  return "WRONG error " + json(err).dump() + " > bound " + json(bound).dump();
}

std::vector<report::Column> columns() {
  return {{"n", "n"},
          {"log2_n", "log2 n"},
          {"type", "type"},
          {"op", "op"},
          {"library", "library"},
          {"median_us", "median us", 2},
          {"min_us", "min us", 2},
          {"max_us", "max us", 2},
          {"gbps", "GB/s", 1},
          {"pct_measured_peak", "% meas. peak", 1},
          {"pct_theoretical_peak", "% theor. peak", 1},
          {"ratio_vs_cub", "vs CUB", 3},
          {"x_launch_floor", "x floor", 2},
          {"x_driver_floor", "x drv floor", 2},
          {"check", "check"}};
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

BenchOutcome run_bench(const BenchOptions& o) {
  const std::vector<unsigned> exponents = axis_exponents(o);
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.types.empty() || o.ops.empty()) throw std::invalid_argument("no type or no operator to benchmark");

  BenchOutcome out;
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

  lab::RunContext ctx = lab::RunContext::open(r);
  if (!ctx.has_device()) return out;
  out.gpu_ran = true;
  size_t widest = 0;
  for (auto t : o.types) widest = std::max(widest, element_bytes(t));
  const std::string largest_input = "n = 2^" + std::to_string(max_log2) + " elements of " + std::to_string(widest) + " bytes";
  ctx.require_device_memory(max_n * widest + 2 * ctx.device().l2_bytes + (256u << 20), largest_input);
  // The input of one type at a time is made on the host, then copied.
  harness::require_host_memory(max_n * widest, largest_input);
  const double peak = ctx.read_bandwidth_gbps();
  const double theoretical = harness::theoretical_bandwidth_gbps(ctx.device().mem_clock_khz, ctx.device().mem_bus_width_bits);
  const cudaStream_t stream = ctx.stream();

  // The launch floor: an empty kernel, timed like every reduction, launched with <<<>>> as a
  // caller's kernel would be; beside it the same kernel launched the way warpfold launches its
  // own (the driver's path, 0.27-0.48 µs faster event-timed in the records), since part of warpfold's
  // distance to the floor is that faster launch.
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
        const std::vector<Library> libs{Library::cub, Library::warpfold, Library::thrust, Library::no_combine,
                                        Library::warpfold_again};
        std::map<Library, std::unique_ptr<ReduceRunner>> runners;
        std::map<Library, std::string> verdicts;
        std::map<Library, double> results;
        for (Library lib : libs) {
          runners[lib] = make_runner(lib, type, op, d_in.get(), n, stream);
          runners[lib]->run();  // checked before it is timed
          results[lib] = runners[lib]->result();
          verdicts[lib] = check(lib, type, op, n, ref, results[lib]);
        }
        // warpfold is reproducible: its second row must give the first row's result, bit for bit.
        if (verdicts[Library::warpfold_again] == "ok" &&
            std::memcmp(&results[Library::warpfold_again], &results[Library::warpfold], sizeof(double)) != 0) {
          verdicts[Library::warpfold_again] = "WRONG differs from the warpfold row: " +
                                              json(results[Library::warpfold_again]).dump() + " against " +
                                              json(results[Library::warpfold]).dump();
        }
        for (Library lib : {Library::warpfold, Library::warpfold_again, Library::no_combine}) {
          if (verdicts[lib] != "ok") out.check_failed = true;
        }
        // The launch floors first, then the libraries; `timed` below follows this order.
        std::vector<std::function<void()>> group = empty_launches;
        group.insert(group.end(), {[&] { runners[Library::cub]->run(); },
                                   [&] { runners[Library::warpfold]->run(); },
                                   [&] { runners[Library::no_combine]->run(); },
                                   [&] { runners[Library::warpfold_again]->run(); }});
        // CUB, warpfold (twice), the no-combine read and the two empty kernels are timed interleaved, a
        // repetition of each per round, so that their ratios and the floor come from the same
        // moments of the machine;
        // each round in an order of its own, since a run's time depends on the run before it
        // (harness/run_order.hpp).
        // Interleaving is fair only while the input stays in L2 whatever ran before it. Past half
        // the L2, a run's hits depend on the order of the run before (a grid-strided sweep right
        // after another leaves the wrong end of the buffer in L2, measured up to 15% slower), so
        // there they take turns of kSeriesTurn repetitions, each turn after an untimed one: as a
        // caller repeating one reduce would see it, and still from the same stretch of time (one
        // series per library had let a neighbour's burst on the machine land on one library
        // alone: 2^26 int32 max once read 120 us against CUB's 97, its fastest repetition 90).
        // With --cold every repetition starts from a flushed L2 and the order does not matter.
        const bool interleave = o.cold || bytes * 2 <= double(ctx.device().l2_bytes);
        const std::vector<harness::TimingStats> timed =
            harness::time_in_turns(stream, o.warmup, o.reps, interleave ? 1 : kSeriesTurn, prepare, group);
        if (timed.size() != group.size()) throw std::logic_error("bench: one timing per run expected");
        std::map<Library, harness::TimingStats> stats{{Library::cub, timed.at(2)},
                                                      {Library::warpfold, timed.at(3)},
                                                      {Library::no_combine, timed.at(4)},
                                                      {Library::warpfold_again, timed.at(5)}};
        stats[Library::thrust] =
            harness::time_on_stream(stream, o.warmup, o.reps, prepare, [&] { runners[Library::thrust]->run(); });
        const double floor_ms = timed.at(0).median_ms;
        const double driver_floor_ms = timed.at(1).median_ms;
        floors_ms.push_back(floor_ms);
        driver_floors_ms.push_back(driver_floor_ms);
        std::map<Library, double> median;
        for (Library lib : libs) {
          const harness::TimingStats& s = stats[lib];
          median[lib] = s.median_ms;
          const double gbps = bytes / (s.median_ms * 1e-3) / 1e9;
          t.add_row({n, k, to_string(type), to_string(op), to_string(lib), s.median_ms * 1e3, s.min_ms * 1e3,
                     s.max_ms * 1e3, gbps, 100 * gbps / peak, 100 * gbps / theoretical,
                     lib == Library::cub ? json(1.0) : json(median[Library::cub] / s.median_ms),
                     s.median_ms / floor_ms, s.median_ms / driver_floor_ms, verdicts[lib]});
        }
        if (o.cpu) {
          const double gbps = bytes / (ref.cpu_ms * 1e-3) / 1e9;
          t.add_row({n, k, to_string(type), to_string(op), "cpu", ref.cpu_ms * 1e3, nullptr, nullptr, gbps, nullptr,
                     nullptr, median[Library::cub] / ref.cpu_ms, ref.cpu_ms / floor_ms, ref.cpu_ms / driver_floor_ms,
                     "reference"});
        }
      }
    }
  }
  t.notes.push_back("vs CUB: CUB's median time / the row's median time (above 1: faster than CUB)");
  t.notes.push_back("x floor: the row's median time / the launch floor timed with it (an empty kernel launched with <<<>>>, interleaved with CUB and warpfold)");
  t.notes.push_back("x drv floor: the same against the empty kernel launched as warpfold launches its own (the driver's cuLaunchKernel with a cached handle), timed in the same rounds: the floor for a caller launching that way");
  t.notes.push_back("cub, warpfold, warpfold (again), no combine and the two empty kernels are timed interleaved, one repetition of each per round in an order that changes every round (each follows each other equally often), while the input fits in half the L2 (or with --cold); larger inputs take turns of 10 repetitions, each turn after an untimed repetition, since there each run's L2 hits depend on the run before");
  t.notes.push_back("no combine: warpfold's grid, tiles and loads, launched the same way, each block reducing what it read (XOR of 32-bit words, checked) and storing it, with no grid-wide combine: what one launch that reads the input costs; its vs CUB is the most any reduce reading the data this way could reach in this run");
  t.notes.push_back("warpfold (again): the same warpfold::reduce timed a second time in the same rounds, its result required bitwise equal to the warpfold row's: the difference between the two rows is a gauge of the run's noise");
  if (!floors_ms.empty()) {
    const auto [lo, hi] = std::minmax_element(floors_ms.begin(), floors_ms.end());
    const auto [dlo, dhi] = std::minmax_element(driver_floors_ms.begin(), driver_floors_ms.end());
    std::snprintf(line, sizeof line, "launch floor timed with each size: %.2f … %.2f us (as warpfold launches: %.2f … %.2f us)",
                  *lo * 1e3, *hi * 1e3, *dlo * 1e3, *dhi * 1e3);
    r.preamble.push_back(line);
  }
  t.notes.push_back("accumulator = element type on every side; int32 sums wrap and are compared with the wrap of the exact sum");
  t.notes.push_back("thrust::reduce returns the value: its time includes its temp allocation, the copy back and the wait");
  t.notes.push_back("cpu: one pass of a plain loop (long double for floats), timed once");
  r.tables.push_back(std::move(t));
  return out;
}

}  // namespace warpfold::bench

namespace warpfold::bench {

std::string to_string(ElementType t) {
  switch (t) {
    case ElementType::int32: return "int32";
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
    case Library::no_combine: return "no combine";
  }
  return "?";
}

size_t element_bytes(ElementType t) { return t == ElementType::float64 ? 8 : 4; }

}  // namespace warpfold::bench
