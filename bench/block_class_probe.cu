// What a Hopper GPU needs to read block-class CSR segments (3073 to 65536 floats) as fast as
// cub::DeviceSegmentedReduce::Sum: plain kernels that fold each segment with a whole block, timed
// against CUB, warpfold::segmented_reduce with the offsets and, where the segments are of one
// size, with segment_size, in the same rounds (docs/design.md, SG68). Float sums over 2^26
// elements with int32 CSR offsets; every output is checked against a double-precision sum.
//
// A plain kernel folds segment s as the segments kernel folds a one-piece segment (V: scalar head,
// tiles of 256 threads × V 16-byte vectors, every load of a tile out before any fold, scalar
// tail) or as CUB does (S: tiles of 256 × 4V elements, vectors where the segment starts on 16
// bytes and the tile is full, else guarded scalars, so that a tile is one round trip at any
// alignment and there is no head or tail), then a block reduction. B is the blocks per SM: 8 by
// the registers __launch_bounds__ leaves, or 4 by 46 KiB of dynamic shared memory per block,
// which leaves 60 KiB of L1. Grids: every resident block taking segments b, b + grid, … (loop);
// every resident block taking a range of consecutive segments, as the segments kernel's tiles
// give a block its own (range); one block per segment, as CUB launches (seg). "lib BN" is one
// block per segment folding with the library's own fold_piece and block_total (the segments
// kernel's bits), bound by __launch_bounds__ to N blocks per SM (the blocks that fit follow in
// brackets); "chk" also reads one word of temp storage at the block's end, as a block that looks
// for work left before it exits would (docs/design.md, SG76); "+2nd" and "+pdl" follow lib B8 with a
// second kernel that has nothing to do, stream-ordered or as a programmatic dependent launch.
// "wf len" is segmented_reduce given the input's length.
//
//   cmake --build build --target warpfold_block_class_probe
//   build/bench/warpfold_block_class_probe [--rounds N]

#include "bench_args.hpp"
#include "csr_shapes.hpp"
#include "harness/device_buffer.hpp"

#include <warpfold/segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using warpfold::harness::DeviceBuffer;
using warpfold_bench::csr_offsets;
using warpfold_bench::uniform_lengths;
using warpfold_bench::uniform_name;

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
  std::exit(2);
}

constexpr unsigned kThreads = 256;
constexpr uint64_t kTotal = uint64_t(1) << 26;
constexpr int kBatch = 5;  // calls per timed sample

__device__ __forceinline__ float block_sum(float v, float* warp_sums) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  float total = 0;
  if (warp == 0) {
    total = lane < kThreads / 32 ? warp_sums[lane] : 0.0f;
    for (int o = 4; o > 0; o /= 2) total += __shfl_down_sync(0xffffffffu, total, o);
  }
  __syncthreads();  // warp_sums is free for the next segment
  return total;
}

// Segment s's fold by the calling block: head, tiles of kThreads · V vectors, tail.
template <int V>
__device__ __forceinline__ float fold_segment(const float* in, int b, int e) {
  const int body = min(e, (b + 3) & ~3);
  float acc = 0;
  if (int(threadIdx.x) < body - b) acc += in[b + threadIdx.x];
  const int vectors = (e - body) / 4;
  const float4* v = reinterpret_cast<const float4*>(in + body);
  for (int t = 0; t < vectors; t += kThreads * V) {
    float4 x[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int i = t + int(threadIdx.x) + k * int(kThreads);
      x[k] = i < vectors ? __ldg(v + i) : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < V; ++k) acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
  }
  const int tail = body + vectors * 4;
  if (int(threadIdx.x) < e - tail) acc += in[tail + threadIdx.x];
  return acc;
}

// CUB's way (AgentReduce): tiles of kThreads · 4V elements, as unguarded vectors where the
// segment starts on 16 bytes and the tile is full, else as 4V guarded scalars per thread (thread t
// reads elements t, t + kThreads, …): one round trip per tile at any alignment, no head or tail.
template <int V>
__device__ __forceinline__ float fold_segment_striped(const float* in, int b, int e) {
  constexpr int kItems = 4 * V, kTile = int(kThreads) * kItems;
  const bool aligned = (b & 3) == 0;
  float acc = 0;
  for (int t = b; t < e; t += kTile) {
    if (aligned && t + kTile <= e) {
      const float4* v = reinterpret_cast<const float4*>(in + t);
      float4 x[V];
#pragma unroll
      for (int k = 0; k < V; ++k) x[k] = __ldg(v + threadIdx.x + k * kThreads);
#pragma unroll
      for (int k = 0; k < V; ++k) acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
    } else {
      float x[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = t + int(threadIdx.x) + k * int(kThreads);
        x[k] = i < e ? __ldg(in + i) : 0.0f;
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) acc += x[k];
    }
  }
  return acc;
}

// Segments b, b + grid, … of block b, or (per_block > 0) segments [b · per_block, (b + 1) · per_block),
// as the segments kernel's tiles give a block its own.
template <int V, int B, bool Striped>
__global__ void __launch_bounds__(kThreads, B) block_segments(const float* in, const int* off, float* out, int segments,
                                                              int per_block) {
  extern __shared__ float occupancy_pad[];  // sized by the host: B blocks per SM
  __shared__ float warp_sums[kThreads / 32];
  const int first = per_block > 0 ? int(blockIdx.x) * per_block : int(blockIdx.x);
  const int end = per_block > 0 ? min(segments, first + per_block) : segments;
  const int step = per_block > 0 ? 1 : int(gridDim.x);
  for (int s = first; s < end; s += step) {
    const float part = Striped ? fold_segment_striped<V>(in, off[s], off[s + 1]) : fold_segment<V>(in, off[s], off[s + 1]);
    const float total = block_sum(part, warp_sums);
    if (threadIdx.x == 0) out[s] = total;
  }
  if (segments < 0) occupancy_pad[0] = 0;  // never: keeps the array
}

struct Shape {
  std::string name;
  std::vector<int> offsets;
};

std::vector<Shape> shapes() {
  std::mt19937_64 rng(11);
  std::vector<Shape> all;
  for (uint64_t len : {1024u, 2048u, 4097u, 8192u, 65536u}) {
    all.push_back({"equal " + std::to_string(len), csr_offsets(std::vector<uint64_t>(kTotal / len, len), kTotal)});
  }
  for (auto [lo, hi] : {std::pair<uint64_t, uint64_t>{0, 8192}, {3073, 8192}}) {
    all.push_back({uniform_name(lo, hi), csr_offsets(uniform_lengths(lo, hi, kTotal, rng), kTotal)});
  }
  return all;
}

struct Contender {
  std::string name;
  std::function<void(float*)> run;
  std::vector<double> us;
};

// A plain kernel as a contender. Pad: 46 KiB of dynamic shared memory per block hold it at 4
// blocks per SM (a fifth would pass the SM's 228 KiB), else its registers hold it at B.
template <int V, int B, bool Striped, bool Pad>
Contender plain_kernel(const float* in, const int* off, int segments, bool one_per_segment, int sms, bool ranges = false) {
  const auto kernel = &block_segments<V, B, Striped>;
  const size_t pad = Pad ? 46 * 1024 : 0;
  if (Pad) check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pad)), "shared memory");
  int resident = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, pad), "occupancy");
  if (resident != B) {
    std::fprintf(stderr, "V=%d B=%d: %d blocks per SM resident\n", V, B, resident);
    std::exit(2);
  }
  const int grid = one_per_segment ? segments : std::min(segments, sms * B);
  const int per_block = ranges ? (segments + grid - 1) / grid : 0;
  const std::string name = std::string(Striped ? "S" : "V") + std::to_string(V) + " B" + std::to_string(B) +
                           (one_per_segment ? " seg" : ranges ? " range" : " loop");
  return {name, [=](float* out) {
            kernel<<<grid, kThreads, pad>>>(in, off, out, segments, per_block);
            check(cudaGetLastError(), "launch");
          }, {}};
}

// The library's one-piece fold (fold_piece, then block_total: the segments kernel's bits) of
// segment blockIdx.x at B blocks per SM, one block per segment. Check: thread 0 then reads one
// word of temp storage (zero: the result stands).
template <int B, bool Check>
__global__ void __launch_bounds__(kThreads, B) library_segments(const float* in, const int* off, float* out,
                                                               const unsigned long long* word) {
  using namespace warpfold::detail;
  allow_dependent_launch();  // the +pdl contender's second kernel may start
  __shared__ warpfold::block::reduce_storage<float, kThreads> storage;
  const int s = int(blockIdx.x);
  const int b = off[s], e = off[s + 1];
  const contiguous_segment<float> seg{in + b, uint64_t(e > b ? e - b : 0)};
  thread_fold<float, warpfold::plus, convert<warpfold::identity>> f{0.0f, false, warpfold::plus{}, {}};
  fold_piece(seg, seg.items(), 0, 1, f);
  int valid = 0;
  const float total = block_total(f, warpfold::plus{}, storage, valid);
  if (threadIdx.x == 0) {
    float r = valid > 0 ? total : 0.0f;
    if (Check && *reinterpret_cast<const volatile unsigned long long*>(word) == 0x5eedull) r = -r;
    out[s] = r;
  }
}

// A second launch with nothing to do, after a call's first: the segments kernel's grid (4 blocks
// per SM), each block reading one word of temp storage, then exiting. As a programmatic dependent
// launch it waits for the first grid in wait_for_prior_grid.
__global__ void __launch_bounds__(kThreads) empty_second_kernel(const unsigned long long* word, float* sink) {
  warpfold::detail::wait_for_prior_grid();
  __shared__ unsigned long long seen;
  if (threadIdx.x == 0) seen = *reinterpret_cast<const volatile unsigned long long*>(word);
  __syncthreads();
  if (seen == 0x5eedull) sink[blockIdx.x] = 0.0f;
}

template <int B, bool Check>
Contender library_kernel(const float* in, const int* off, int segments, const unsigned long long* word) {
  const auto kernel = &library_segments<B, Check>;
  int resident = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0), "occupancy");
  const std::string name = "lib B" + std::to_string(B) + (Check ? " chk" : "") + "(" + std::to_string(resident) + ")";
  return {name, [=](float* out) {
            kernel<<<segments, kThreads>>>(in, off, out, word);
            check(cudaGetLastError(), "launch");
          }, {}};
}

// `first` followed by empty_second_kernel, stream-ordered or (pdl) as a programmatic dependent
// launch: what a call costs whose one-piece segments take a block each and whose other segments
// are left to a second kernel, where there are none (docs/design.md, SG76).
Contender then_second(const std::string& label, const Contender& first, const unsigned long long* word, int sms,
                      bool pdl) {
  const auto run_first = first.run;
  return {label + (pdl ? " +pdl" : " +2nd"), [=](float* out) {
            run_first(out);
            cudaLaunchConfig_t config{};
            config.gridDim = dim3(unsigned(warpfold::detail::kSegmentMinBlocks * sms));
            config.blockDim = dim3(kThreads);
            cudaLaunchAttribute attribute{};
            attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attribute.val.programmaticStreamSerializationAllowed = 1;
            config.attrs = &attribute;
            config.numAttrs = pdl ? 1 : 0;
            check(cudaLaunchKernelEx(&config, empty_second_kernel, word, out), "second launch");
          }, {}};
}

// CUB and warpfold on the shape's offsets, and warpfold's fixed-size call where every segment is
// first_len long (0: not so). Their temp storage lives in `temps`.
std::vector<Contender> library_contenders(const float* in, const int* off, int segments, int first_len,
                                          std::vector<DeviceBuffer<char>>& temps) {
  const auto temp = [&](size_t bytes) {
    temps.emplace_back(std::max<size_t>(bytes, 1));
    return static_cast<void*>(temps.back().get());
  };
  size_t cub_bytes = 0, csr_bytes = 0, fixed_bytes = 0;
  check(cub::DeviceSegmentedReduce::Sum(nullptr, cub_bytes, in, static_cast<float*>(nullptr), segments, off, off + 1),
        "cub size");
  check(warpfold::segmented_reduce(nullptr, csr_bytes, in, static_cast<float*>(nullptr), uint64_t(segments), off,
                                   off + 1, warpfold::plus{}, 0.0f),
        "warpfold size");
  void* cub_temp = temp(cub_bytes);
  void* csr_temp = temp(csr_bytes);
  std::vector<Contender> c;
  c.push_back({"cub", [=](float* o) {
                 size_t b = cub_bytes;
                 check(cub::DeviceSegmentedReduce::Sum(cub_temp, b, in, o, segments, off, off + 1), "cub");
               }, {}});
  c.push_back({"warpfold", [=](float* o) {
                 size_t b = csr_bytes;
                 check(warpfold::segmented_reduce(csr_temp, b, in, o, uint64_t(segments), off, off + 1,
                                                  warpfold::plus{}, 0.0f),
                       "warpfold");
               }, {}});
  size_t length_bytes = 0;  // the call that also takes the input's length
  check(warpfold::segmented_reduce(nullptr, length_bytes, in, kTotal, static_cast<float*>(nullptr), uint64_t(segments),
                                   off, off + 1, warpfold::plus{}, 0.0f),
        "warpfold size");
  void* length_temp = temp(length_bytes);
  c.push_back({"wf len", [=](float* o) {
                 size_t b = length_bytes;
                 check(warpfold::segmented_reduce(length_temp, b, in, kTotal, o, uint64_t(segments), off, off + 1,
                                                  warpfold::plus{}, 0.0f),
                       "warpfold with the length");
               }, {}});
  if (first_len > 0) {  // the same rows through the fixed-size call: no offsets, no tiles
    check(warpfold::segmented_reduce(nullptr, fixed_bytes, in, static_cast<float*>(nullptr), uint64_t(segments),
                                     uint64_t(first_len), warpfold::plus{}, 0.0f),
          "fixed size");
    void* fixed_temp = temp(fixed_bytes);
    c.push_back({"fixed", [=](float* o) {
                   size_t b = fixed_bytes;
                   check(warpfold::segmented_reduce(fixed_temp, b, in, o, uint64_t(segments), uint64_t(first_len),
                                                    warpfold::plus{}, 0.0f),
                         "fixed");
                 }, {}});
  }
  return c;
}

std::vector<Contender> plain_contenders(const float* in, const int* off, int segments, int sms,
                                       const unsigned long long* word) {
  std::vector<Contender> c;
  c.push_back(library_kernel<5, false>(in, off, segments, word));
  c.push_back(library_kernel<6, false>(in, off, segments, word));
  const Contender b8 = library_kernel<8, false>(in, off, segments, word);
  c.push_back(b8);
  c.push_back(library_kernel<5, true>(in, off, segments, word));
  c.push_back(then_second("lib B8", b8, word, sms, false));
  c.push_back(then_second("lib B8", b8, word, sms, true));
  for (bool one : {false, true}) {
    c.push_back(plain_kernel<4, 4, false, true>(in, off, segments, one, sms));
    c.push_back(plain_kernel<8, 4, false, true>(in, off, segments, one, sms));
    c.push_back(plain_kernel<4, 8, false, false>(in, off, segments, one, sms));
    c.push_back(plain_kernel<4, 4, true, true>(in, off, segments, one, sms));
    c.push_back(plain_kernel<4, 8, true, false>(in, off, segments, one, sms));
  }
  c.push_back(plain_kernel<4, 4, false, true>(in, off, segments, false, sms, true));
  c.push_back(plain_kernel<4, 8, false, false>(in, off, segments, false, sms, true));
  return c;
}

// The length every segment has, or 0 where they differ.
int common_length(const std::vector<int>& offsets) {
  const int first = offsets[1] - offsets[0];
  for (size_t j = 1; j < offsets.size(); ++j) {
    if (offsets[j] - offsets[j - 1] != first) return 0;
  }
  return first;
}

// Whether k's output on the shape is within rounding of a double-precision sum, after a run that
// starts from an output of NaNs.
bool output_right(Contender& k, const Shape& s, float* d_out, const std::vector<float>& x) {
  const int segments = int(s.offsets.size() - 1);
  check(cudaMemset(d_out, 0xff, size_t(segments) * sizeof(float)), "clear");
  k.run(d_out);
  check(cudaDeviceSynchronize(), k.name.c_str());
  std::vector<float> got(static_cast<size_t>(segments));
  check(cudaMemcpy(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost), "read");
  for (int j = 0; j < segments; ++j) {
    double sum = 0;
    for (int i = s.offsets[j]; i < s.offsets[j + 1]; ++i) sum += x[size_t(i)];
    const double len = double(s.offsets[j + 1] - s.offsets[j]);
    if (!(std::fabs(double(got[size_t(j)]) - sum) <= 1e-5 * std::sqrt(len + 1.0))) {
      std::fprintf(stderr, "%s, %s: segment %d is %g, not %g\n", s.name.c_str(), k.name.c_str(), j,
                   double(got[size_t(j)]), sum);
      return false;
    }
  }
  return true;
}

// Two rounds of warm-up, then `rounds` rounds; each round times every contender once (kBatch calls
// after an untimed one of its own), in an order rotated by one place a round.
void time_rounds(std::vector<Contender>& c, float* d_out, int rounds) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int r = -2; r < rounds; ++r) {
    for (size_t i = 0; i < c.size(); ++i) {
      Contender& k = c[(i + size_t(r + 2)) % c.size()];
      k.run(d_out);
      check(cudaEventRecord(start), "record");
      for (int b = 0; b < kBatch; ++b) k.run(d_out);
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      if (r >= 0) k.us.push_back(1e3 * ms / kBatch);
    }
  }
  check(cudaEventDestroy(start), "event");
  check(cudaEventDestroy(stop), "event");
}

// One shape: every contender checked, then timed; one line of medians. False where an output is wrong.
bool run_shape(const Shape& s, const float* d_in, const std::vector<float>& x, int rounds, int sms) {
  const int segments = int(s.offsets.size() - 1);
  const DeviceBuffer<int> off(s.offsets.size());
  const DeviceBuffer<float> out(static_cast<size_t>(segments));
  check(cudaMemcpy(off.get(), s.offsets.data(), off.bytes(), cudaMemcpyHostToDevice), "copy");
  std::vector<DeviceBuffer<char>> temps;
  std::vector<Contender> c = library_contenders(d_in, off.get(), segments, common_length(s.offsets), temps);
  const DeviceBuffer<unsigned long long> word(1);
  check(cudaMemset(word.get(), 0, word.bytes()), "clear");
  for (Contender& k : plain_contenders(d_in, off.get(), segments, sms, word.get())) c.push_back(std::move(k));
  bool ok = true;
  for (Contender& k : c) ok &= output_right(k, s, out.get(), x);
  time_rounds(c, out.get(), rounds);
  std::printf("%-22s %8d", s.name.c_str(), segments);
  for (Contender& k : c) {
    std::sort(k.us.begin(), k.us.end());
    std::printf("  %s %6.1f", k.name.c_str(), k.us[k.us.size() / 2]);
  }
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15;
  if (!warpfold_bench::parse_rounds(argc, argv, 1, 1000, rounds)) {
    std::fprintf(stderr, "usage: warpfold_block_class_probe [--rounds N]\n");
    return 2;
  }
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "device");
  std::vector<float> x(kTotal);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (float& v : x) v = unit(rng);
  try {
    const DeviceBuffer<float> in(kTotal);
    check(cudaMemcpy(in.get(), x.data(), in.bytes(), cudaMemcpyHostToDevice), "copy");
    std::printf("%s; CSR float sums over 2^26 elements, medians of %d rounds of %d calls, us per call\n", p.name,
                rounds, kBatch);
    bool ok = true;
    for (const Shape& s : shapes()) ok &= run_shape(s, in.get(), x, rounds, p.multiProcessorCount);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {  // an allocation the device refused
    std::fprintf(stderr, "warpfold_block_class_probe: %s\n", e.what());
    return 1;
  }
}
