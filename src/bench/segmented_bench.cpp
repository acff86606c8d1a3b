#include "bench/segmented_bench.hpp"

#include "bench/reduce_runners.hpp"
#include "harness/device_buffer.hpp"
#include "harness/gpu_timer.hpp"
#include "harness/host_memory.hpp"
#include "harness/random_data.hpp"
#include "harness/run_context.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>

namespace warpfold::bench {
namespace {

using nlohmann::json;

// Repetitions per turn for inputs past half the L2 (bench_run.cpp says why).
constexpr int kSeriesTurn = 10;
constexpr uint64_t kBatchSegments = 1000, kBatchLength = 64;
// The power-law set: this many segments at 2^26 elements (scaled with the total), one of them
// holding half the data, the others Zipf-distributed.
constexpr uint64_t kPowerLawSegments = 52000;

std::string count_text(uint64_t x) {
  if (x > 1024 && (x & (x - 1)) == 0) return "2^" + std::to_string(63 - __builtin_clzll(x));
  return std::to_string(x);
}

// Floats uniform in [-1, 1), never zero.
std::vector<float> make_floats(uint64_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<float> x(n);
  for (auto& v : x) {
    v = float(double(gen() >> 11) * 0x1.0p-52 - 1.0);
    if (v == 0.0f) v = 0.5f;
  }
  return x;
}

// Every output's exact-enough sum (double), the sum of its magnitudes and its length.
struct OutputReference {
  std::vector<double> sum, magnitude;
  std::vector<uint64_t> len;
};

OutputReference reference_of(const std::vector<float>& x, const SegmentedInput& in, const std::vector<int32_t>& offsets) {
  const uint64_t outputs = in.segments;
  OutputReference r{std::vector<double>(outputs), std::vector<double>(outputs), std::vector<uint64_t>(outputs)};
  const auto add = [&](uint64_t k, float v) {
    r.sum[k] += v;
    r.magnitude[k] += std::fabs(v);
    ++r.len[k];
  };
  if (in.kind == ShapeKind::segmented) {
    for (uint64_t k = 0; k < outputs; ++k)
      for (int64_t i = offsets[k]; i < offsets[k + 1]; ++i) add(k, x[size_t(i)]);
    return r;
  }
  const axis_shape& s = in.shape;
  for (uint64_t o = 0; o < s.outer; ++o)
    for (uint64_t a = 0; a < s.axis; ++a)
      for (uint64_t i = 0; i < s.inner; ++i)
        add(o * s.inner + i, x[size_t(int64_t(o) * s.outer_stride + int64_t(a) * s.axis_stride + int64_t(i) * s.inner_stride)]);
  return r;
}

// "ok", or "WRONG ..." for the first output beyond the bound that holds for any order of the
// additions, len · u · Σ|x| (u = 2^-24).
std::string check(const std::vector<float>& got, const OutputReference& ref) {
  for (size_t k = 0; k < got.size(); ++k) {
    const double bound = double(ref.len[k]) * 0x1p-24 * ref.magnitude[k] + 1e-30;
    if (!(std::fabs(double(got[k]) - ref.sum[k]) <= bound)) {
      return "WRONG output " + std::to_string(k) + ": " + json(got[k]).dump() + ", expected " + json(ref.sum[k]).dump();
    }
  }
  return "ok";
}

// One shape on the device: the input view the libraries take, its offsets, the bytes it moves.
struct PreparedShape {
  SegmentedInput input;
  std::vector<int32_t> offsets;  // segmented: the CSR offsets
  harness::DeviceBuffer<int32_t> d_offsets;
  double bytes = 0;  // distinct bytes read and written: input, offsets once, outputs
};

PreparedShape prepare(const BenchShape& s, const float* d_in, uint64_t total, uint64_t seed) {
  PreparedShape p;
  p.input.kind = s.kind;
  p.input.in = d_in;
  p.input.with_length = s.with_length;
  if (s.kind == ShapeKind::segmented) {
    const std::vector<uint64_t> lengths = segment_lengths(s, total, seed);
    p.offsets.assign(1, 0);
    for (uint64_t len : lengths) p.offsets.push_back(p.offsets.back() + int32_t(len));
    p.d_offsets = harness::DeviceBuffer<int32_t>((p.offsets.size() + 3) / 4 * 4);  // whole vectors for the probe
    WARPFOLD_CUDA_CHECK(cudaMemcpy(p.d_offsets.get(), p.offsets.data(), p.offsets.size() * sizeof(int32_t),
                                   cudaMemcpyHostToDevice));
    p.input.offsets = p.d_offsets.get();
    p.input.segments = lengths.size();
    p.input.elements = uint64_t(p.offsets.back());
    p.bytes = double(p.input.elements + p.offsets.size() + p.input.segments) * 4;
    return p;
  }
  if (s.view != View::contiguous) {
    // x.T.sum(1) is x.sum(0) read along rows a row apart; x[:, ::2].sum(1) reads every other column.
    const bool transposed = s.view == View::transposed;
    const int64_t cols = int64_t(s.cols);
    p.input.shape = transposed ? axis_shape{s.cols, s.rows, 1, 1, cols, 1} : axis_shape{s.rows, s.cols / 2, 1, cols, 2, 1};
    p.input.strided = true;
    p.input.segments = p.input.shape.outer;
    p.input.elements = p.input.shape.outer * p.input.shape.axis;
    p.bytes = double(p.input.elements + p.input.segments) * 4;
    return p;
  }
  p.input.elements = s.rows * s.cols;
  const bool columns = s.kind == ShapeKind::axis && s.dim == 0;
  p.input.shape = columns ? axis_shape::contiguous(1, s.rows, s.cols) : axis_shape::contiguous(s.rows, s.cols, 1);
  p.input.segments = columns ? s.cols : s.rows;
  p.bytes = double(p.input.elements + p.input.segments) * 4;
  return p;
}

std::vector<report::Column> columns() {
  return {{"kind", "kind"},
          {"shape", "shape"},
          {"segments", "outputs"},
          {"elements", "elements"},
          {"library", "library"},
          {"median_us", "median us", 2},
          {"min_us", "min us", 2},
          {"max_us", "max us", 2},
          {"gbps", "GB/s", 1},
          {"pct_roofline", "% roofline", 1},
          {"pct_measured_peak", "% meas. peak", 1},
          {"ratio_vs_cub", "vs CUB", 3},
          {"ratio_vs_cub_low", "vs CUB lo", 3},
          {"ratio_vs_cub_high", "vs CUB hi", 3},
          {"ratio_vs_copy", "vs copy", 3},
          {"x_driver_floor", "x drv floor", 2},
          {"check", "check"}};
}

void add_notes(report::Table& t) {
  t.notes.push_back("float sums; GB/s: the distinct bytes the reduction must move (input, offsets once however many "
                    "arrays name them, outputs) over the median time");
  t.notes.push_back("% roofline: the roofline probe's median over the row's (the probe reads exactly the input and "
                    "offsets and writes exactly the outputs, as 16-byte vectors, timed in the same rounds); the "
                    "target is at least 90 (1.11x the probe's time)");
  t.notes.push_back("% meas. peak: GB/s over the streaming probe's DRAM read peak of this run");
  t.notes.push_back("vs CUB: the median over rounds of cub::DeviceSegmentedReduce::Sum's time / warpfold's, timed "
                    "in the same rounds (fixed sizes and rows: CUB given each row's start as an iterator; columns: "
                    "CUB has no such operation); lo and hi: its 95% bootstrap interval");
  t.notes.push_back("vs copy (strided views): the median over rounds of the time of gathering the view into contiguous "
                    "memory and reducing that / warpfold's on the view; the target is at least 1");
  t.notes.push_back("x drv floor: the batch's warpfold time over an empty kernel launched as warpfold launches, "
                    "paired round by round (median of the per-round ratios); the target is at most 1.3");
  t.notes.push_back("the runs of a shape are timed interleaved, one repetition each per round, while its input fits "
                    "in half the L2 (warm); larger inputs take turns of 10 repetitions, each turn after an untimed one");
}

}  // namespace

std::vector<BenchShape> segmented_bench_shapes(const SegmentedBenchOptions& o) {
  const uint64_t total = uint64_t(1) << o.log2_elements;
  std::vector<BenchShape> shapes;
  const uint64_t table_cols[] = {4, 64, 1024, uint64_t(1) << 20, uint64_t(1) << 24, 16, uint64_t(1) << 13,
                                 uint64_t(1) << 26};
  for (uint64_t cols : table_cols) {
    if (cols > total) continue;
    const uint64_t rows = total / cols;
    const std::string name = count_text(rows) + " x " + count_text(cols);
    if (o.segmented) {
      shapes.push_back({ShapeKind::segmented, name, Lengths::equal, rows, cols});
      shapes.push_back({ShapeKind::fixed, name, Lengths::equal, rows, cols});
    }
    if (o.axis) {
      shapes.push_back({ShapeKind::axis, name + ", dim=1", Lengths::equal, rows, cols, 1});
      shapes.push_back({ShapeKind::axis, name + ", dim=0", Lengths::equal, rows, cols, 0});
    }
  }
  if (o.axis) {
    const uint64_t side = uint64_t(1) << (o.log2_elements / 2);
    const std::string square = count_text(side) + " x " + count_text(total / side);
    BenchShape transposed{ShapeKind::axis, square + ", x.T.sum(1)", Lengths::equal, side, total / side, 1};
    transposed.view = View::transposed;
    BenchShape every_other{ShapeKind::axis, square + ", x[:, ::2].sum(1)", Lengths::equal, side, total / side, 1};
    every_other.view = View::every_other_column;
    shapes.push_back(transposed);
    shapes.push_back(every_other);
  }
  if (o.segmented && total >= (uint64_t(1) << 16)) {
    // Segments of 256 KiB of floats: where one block per segment ends and pieces begin.
    const uint64_t cols = uint64_t(1) << 16, rows = total / cols;
    const std::string name = count_text(rows) + " x " + count_text(cols);
    shapes.push_back({ShapeKind::segmented, name, Lengths::equal, rows, cols});
    shapes.push_back({ShapeKind::fixed, name, Lengths::equal, rows, cols});
  }
  if (o.segmented) {
    for (uint64_t mean : {4, 64, 4096}) {
      BenchShape s{ShapeKind::segmented, "uniform [0, " + std::to_string(2 * mean) + "]", Lengths::uniform};
      s.mean = mean;
      shapes.push_back(s);
    }
    shapes.push_back({ShapeKind::segmented, "power law, one segment half the data", Lengths::power_law});
    BenchShape empty{ShapeKind::segmented, "uniform [1, 128], 10% empty", Lengths::tenth_empty};
    empty.mean = 64;
    shapes.push_back(empty);
    BenchShape batch{ShapeKind::segmented, "batch of 1000 x 64, warm in L2", Lengths::equal, kBatchSegments,
                     kBatchLength};
    batch.batch = true;
    shapes.push_back(batch);
    batch.name = "batch of 1000 x 64 with the length, warm in L2";  // the input is the batch's elements
    batch.with_length = true;
    shapes.push_back(batch);
  }
  return shapes;
}

std::vector<uint64_t> segment_lengths(const BenchShape& s, uint64_t total, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<uint64_t> lengths;
  uint64_t sum = 0;
  const auto add = [&](uint64_t len) {
    len = std::min(len, total - sum);
    lengths.push_back(len);
    sum += len;
  };
  switch (s.lengths) {
    case Lengths::equal:
      for (uint64_t r = 0; r < s.rows && sum + s.cols <= total; ++r) add(s.cols);
      break;
    case Lengths::uniform:
      while (sum < total) add(gen() % (2 * s.mean + 1));
      break;
    case Lengths::tenth_empty:
      while (sum < total) add(gen() % 10 == 0 ? 0 : 1 + gen() % (2 * s.mean));
      break;
    case Lengths::power_law: {
      // Zipf: the k-th of the others holds a share proportional to 1 / k of the other half.
      const uint64_t segments = std::max<uint64_t>(100, kPowerLawSegments * total >> 26);
      double harmonic = 0;
      for (uint64_t k = 1; k < segments; ++k) harmonic += 1.0 / double(k);
      const uint64_t half = total / 2;
      for (uint64_t k = 1; k < segments; ++k) add(uint64_t(double(total - half) / (harmonic * double(k))));
      lengths.push_back(half);
      sum += half;
      std::shuffle(lengths.begin(), lengths.end(), gen);
      break;
    }
  }
  return lengths;
}

harness::RunOutcome run_segmented_bench(const SegmentedBenchOptions& o) {
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.log2_elements < 10 || o.log2_elements > 30) throw std::invalid_argument("the shapes' size is 2^10 to 2^30 floats");
  if (!o.segmented && !o.axis) throw std::invalid_argument("no kind of shape chosen: --segmented, --axis or both");
  harness::RunOutcome out;
  report::Report& r = out.report;
  const uint64_t seed = o.seed ? *o.seed : harness::fresh_seed();
  const uint64_t total = uint64_t(1) << o.log2_elements;
  r.preamble.push_back(std::string("warpfold bench ") + (o.segmented ? "--segmented " : "") + (o.axis ? "--axis " : "") +
                       ": float sums of 2^" + std::to_string(o.log2_elements) + " elements per shape, " +
                       std::to_string(o.reps) + " reps, seed " + std::to_string(seed));
  r.meta["command"] = "bench-segmented";
  r.meta["reps"] = o.reps;
  r.meta["seed"] = seed;
  r.meta["log2_elements"] = o.log2_elements;
  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) return out;
  out.gpu_ran = true;
  const std::string what = "2^" + std::to_string(o.log2_elements) + " floats";
  ctx.require_device_memory(total * sizeof(float) * 4 + (size_t(512) << 20), what);
  harness::require_host_memory(total * sizeof(float) * 2, what);
  const double dram_peak = ctx.read_bandwidth_gbps();
  const cudaStream_t stream = ctx.stream();
  const int device = ctx.device().ordinal;

  const std::vector<float> x = make_floats(total, seed);
  harness::DeviceBuffer<float> d_in(total);
  WARPFOLD_CUDA_CHECK(cudaMemcpy(d_in.get(), x.data(), total * sizeof(float), cudaMemcpyHostToDevice));

  report::Table t;
  t.title = "segmented and axis reductions: warpfold vs cub::DeviceSegmentedReduce vs the roofline probe";
  t.columns = columns();
  for (const BenchShape& s : segmented_bench_shapes(o)) {
    PreparedShape p = prepare(s, d_in.get(), total, seed ^ std::hash<std::string>{}(s.name));
    const OutputReference ref = reference_of(x, p.input, p.offsets);
    std::vector<SegmentedLibrary> libs{SegmentedLibrary::probe};
    if (cub_has(p.input)) libs.push_back(SegmentedLibrary::cub);
    if (p.input.strided) libs.push_back(SegmentedLibrary::copy_then_warpfold);
    libs.push_back(SegmentedLibrary::warpfold);
    std::vector<std::unique_ptr<SegmentedRunner>> runners;
    std::vector<std::string> verdicts;
    for (SegmentedLibrary lib : libs) {
      runners.push_back(make_segmented_runner(lib, p.input, stream));
      runners.back()->run();  // checked before it is timed
      verdicts.push_back(lib == SegmentedLibrary::probe ? "probe" : check(runners.back()->outputs(), ref));
    }
    for (size_t k = 0; k < libs.size(); ++k) {  // warpfold's rows, on the view or on its copy
      if (libs[k] != SegmentedLibrary::cub && libs[k] != SegmentedLibrary::probe && verdicts[k] != "ok") out.check_failed = true;
    }
    std::vector<std::function<void()>> group;
    if (s.batch) group.push_back([&] { launch_empty_kernel_as_warpfold(device, stream); });
    for (auto& runner : runners) group.push_back([&runner] { runner->run(); });
    const bool interleave = p.bytes * 2 <= double(ctx.device().l2_bytes);
    std::vector<std::vector<double>> samples;
    const std::vector<harness::TimingStats> timed =
        harness::time_in_turns(stream, o.warmup, o.reps, interleave ? 1 : kSeriesTurn, [] {}, group, &samples);
    const size_t first = s.batch ? 1 : 0;  // the libraries' timings, after the floor's
    const double probe_ms = timed.at(first).median_ms;
    // The per-round ratio of library `other`'s time to warpfold's (the last run), if it ran.
    const auto ratio_to = [&](SegmentedLibrary other) -> std::optional<harness::RatioInterval> {
      const auto at = std::find(libs.begin(), libs.end(), other);
      if (at == libs.end()) return std::nullopt;
      return harness::per_round_ratio(samples.at(first + size_t(at - libs.begin())), samples.at(first + libs.size() - 1));
    };
    for (size_t k = 0; k < libs.size(); ++k) {
      const harness::TimingStats& st = timed.at(first + k);
      const double gbps = p.bytes / (st.median_ms * 1e-3) / 1e9;
      json vs = nullptr, lo = nullptr, hi = nullptr, vs_copy = nullptr, floor = nullptr;
      if (libs[k] == SegmentedLibrary::warpfold) {
        if (const auto cub = ratio_to(SegmentedLibrary::cub)) {
          vs = cub->median;
          lo = cub->low;
          hi = cub->high;
        }
        if (const auto copy = ratio_to(SegmentedLibrary::copy_then_warpfold)) vs_copy = copy->median;
      }
      if (libs[k] == SegmentedLibrary::warpfold && s.batch) {
        floor = harness::per_round_ratio(samples.at(first + k), samples.at(0)).median;
      }
      t.add_row({to_string(s.kind), s.name, p.input.segments, p.input.elements, to_string(libs[k]), st.median_ms * 1e3,
                 st.min_ms * 1e3, st.max_ms * 1e3, gbps, 100 * probe_ms / st.median_ms, 100 * gbps / dram_peak, vs, lo,
                 hi, vs_copy, floor, verdicts[k]});
    }
  }
  add_notes(t);
  r.tables.push_back(std::move(t));
  return out;
}

}  // namespace warpfold::bench
