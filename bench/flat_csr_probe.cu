// A prototype of the flat fold for short CSR segments (docs/design.md, SG56), timed against
// warpfold::segmented_reduce and a plain read of the input in the same rounds. Float sums over 2^26
// elements with int32 CSR offsets, for segment lengths from 4 to 512 on average; every output of
// both is checked against a double-precision sum.
//
// The flat fold: a warp takes 32 consecutive segments at a time and streams their span as rows of
// 256 elements, lane L holding elements 8L … 8L + 7 (two 16-byte loads). The starts of nonempty
// segments are the heads, marked per lane and row as bits in shared memory. Each lane folds its
// eight elements restarting at each head; a segmented scan across the lanes (five shuffles)
// carries the fold of a segment that crosses lanes, and the fold of the segment open at a row's
// end carries into the next row. A head closes the segment before it: its total goes to a table
// in shared memory at the head's place in the row, where the segment's own lane (whose end offset
// is that place) reads it. Its cost is per element, not per segment.
//
// It serves float sums with CSR offsets only, and its bits differ from the segments kernel's lane
// classes; SG56 lists what the library needs before it can take it.
//
//   cmake --build build --target warpfold_flat_csr_probe
//   build/bench/warpfold_flat_csr_probe [--rounds N]

#include <warpfold/segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
  std::exit(2);
}

constexpr unsigned kFullMask = 0xffffffffu;
constexpr unsigned kWarps = 8;              // per block of 256 threads
constexpr unsigned kLaneElements = 8;       // two float4 per lane
constexpr unsigned kRow = 32 * kLaneElements;  // elements per row
constexpr unsigned kRowVectors = kRow / 4;

// Lane L's two vectors of the row that starts at vector v0 of `in`, zero past nvec.
__device__ __forceinline__ void load_row(const float4* in, unsigned v0, unsigned nvec, unsigned lane, float4 (&x)[2]) {
#pragma unroll
  for (unsigned k = 0; k < 2; ++k) {
    const unsigned v = v0 + 2 * lane + k;
    x[k] = v < nvec ? in[v] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

// Elements of a row at the group's edge that lie outside [first, end) fold as 0.
__device__ __forceinline__ void clear_outside(float4 (&x)[2], unsigned element, unsigned first, unsigned end) {
  float* v = reinterpret_cast<float*>(x);
#pragma unroll
  for (unsigned k = 0; k < kLaneElements; ++k)
    if (element + k < first || element + k >= end) v[k] = 0.f;
}

// One row. hb: the lane's head bits (bit k: a nonempty segment starts at its element k). `closing`
// is the table at the lane's first element: a head's closing (the total of the segment it ends)
// goes to the head's place. carry: the fold of the segment open at the row's start, then at its end.
__device__ __forceinline__ void fold_row(const float4 (&x)[2], unsigned hb, unsigned lane, float* closing, float& carry) {
  const float* v = reinterpret_cast<const float*>(x);
  float p[kLaneElements];  // p[k]: the fold from the last head at or before k, or from the lane's start
  p[0] = v[0];
#pragma unroll
  for (unsigned k = 1; k < kLaneElements; ++k) p[k] = (hb >> k & 1u) ? v[k] : p[k - 1] + v[k];
  const unsigned heads = __ballot_sync(kFullMask, hb != 0);
  const int start = 31 - __clz(int(heads & (kFullMask >> (31 - lane))));  // last head lane up to this one
  const int reach = int(lane) - (start > 0 ? start : 0);                  // lanes to its left in its segment
  float scan = p[kLaneElements - 1];
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const float other = __shfl_up_sync(kFullMask, scan, d);
    if (d <= reach) scan = other + scan;
  }
  const float row_end = __shfl_sync(kFullMask, scan, 31);
  float left = __shfl_up_sync(kFullMask, scan, 1);
  if (lane == 0) left = 0.f;
  if (heads == 0) {
    carry = carry + row_end;
    return;
  }
  const bool head_before = (heads & ((1u << lane) - 1u)) != 0;
  const float open = head_before ? left : carry + left;  // the segment open at the lane's start
  if (hb & 1u) closing[0] = open;
#pragma unroll
  for (unsigned k = 1; k < kLaneElements; ++k) {
    const float total = (hb & ((1u << k) - 1u)) ? p[k - 1] : open + p[k - 1];
    if (hb >> k & 1u) closing[k] = total;
  }
  carry = row_end;
}

// Lane i of a group: segment 32·g + i's offsets (the last segment's end where past the last).
struct group_offsets {
  long long begin = 0, end = 0;
};
__device__ __forceinline__ group_offsets read_group(const int* offsets, uint64_t segments, uint64_t group, unsigned lane) {
  const uint64_t s = group * 32 + lane;
  return {offsets[s < segments ? s : segments], offsets[s < segments ? s + 1 : segments]};
}

__global__ void __launch_bounds__(kWarps * 32, 4)
    flat_kernel(const float* in, const int* offsets, uint64_t segments, float* out) {
  __shared__ float tables[kWarps][kRow];
  __shared__ unsigned head_words[kWarps][32];  // per lane of the row: its head bits
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float* table = tables[warp];
  unsigned* words = head_words[warp];
  words[lane] = 0u;
  __syncwarp();
  const uint64_t warps = uint64_t(gridDim.x) * kWarps, groups = (segments + 31) / 32;
  uint64_t g = uint64_t(blockIdx.x) * kWarps + warp;
  group_offsets next = g < groups ? read_group(offsets, segments, g, lane) : group_offsets{};
  for (; g < groups; g += warps) {
    const group_offsets mine = next;
    if (g + warps < groups) next = read_group(offsets, segments, g + warps, lane);  // in flight meanwhile
    const uint64_t s = g * 32 + lane;
    const bool nonempty = s < segments && mine.end > mine.begin;
    if (s < segments && !nonempty) out[s] = 0.f;
    if (__ballot_sync(kFullMask, nonempty) == 0) continue;
    // Places relative to the vector holding the group's first element: 32 bits.
    const long long first = __shfl_sync(kFullMask, mine.begin, 0), end = __shfl_sync(kFullMask, mine.end, 31);
    const float4* span = reinterpret_cast<const float4*>(in) + first / 4;
    const long long base = first / 4 * 4;
    const unsigned nvec = unsigned((end + 3) / 4 - first / 4), rel_first = unsigned(first - base),
                   rel_end = unsigned(end - base), my_begin = unsigned(mine.begin - base),
                   my_end = unsigned(mine.end - base);
    float carry = 0.f;
    float4 row[2], ahead[2];
    load_row(span, 0, nvec, lane, row);
    for (unsigned v0 = 0; v0 < nvec; v0 += kRowVectors) {
      load_row(span, v0 + kRowVectors, nvec, lane, ahead);  // the next row's loads, in flight meanwhile
      const unsigned row_first = 4 * v0;
      const bool head_here = nonempty && my_begin - row_first < kRow;
      if (head_here) atomicOr(&words[(my_begin - row_first) / kLaneElements], 1u << ((my_begin - row_first) % kLaneElements));
      __syncwarp();
      if (row_first < rel_first || row_first + kRow > rel_end)
        clear_outside(row, row_first + kLaneElements * lane, rel_first, rel_end);
      const unsigned hb = words[lane];
      words[lane] = 0u;
      fold_row(row, hb, lane, table + kLaneElements * lane, carry);
      __syncwarp();
      if (nonempty && mine.end != end && my_end - row_first < kRow) out[s] = table[my_end - row_first];
      __syncwarp();
      row[0] = ahead[0];
      row[1] = ahead[1];
    }
    if (nonempty && mine.end == end) out[s] = carry;
  }
}

// The plain read of the input in 16-byte vectors, folded so that the loads stay.
__global__ void read_kernel(const float4* in, uint64_t vectors, float* sink) {
  float acc = 0.f;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += uint64_t(gridDim.x) * blockDim.x) {
    const float4 v = in[i];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == 1234.5f) *sink = acc;
}

using lengths = std::vector<uint64_t>;
lengths equal(uint64_t segments, uint64_t len) { return lengths(segments, len); }
// Lengths drawn from [lo, hi] (a share of them 0) until they cover `total` elements.
lengths uniform(uint64_t total, uint64_t lo, uint64_t hi, uint64_t seed, double empty_share = 0) {
  std::mt19937_64 gen(seed);
  lengths out;
  uint64_t sum = 0;
  while (sum < total) {
    uint64_t len = lo + gen() % (hi - lo + 1);
    if (double(gen() % 1000) < empty_share * 1000) len = 0;
    len = std::min(len, total - sum);
    out.push_back(len);
    sum += len;
  }
  return out;
}

struct shape {
  std::string name;
  lengths lens;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 10;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
  const uint64_t n = uint64_t(1) << 26;
  int device = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flat_kernel, kWarps * 32, 0), "occupancy");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("%s: float sums over 2^26 elements, int32 CSR offsets; medians of %d turns of 10 calls (us)\n", prop.name,
              rounds);
  const std::vector<shape> shapes = {
      {"uniform [0, 128]", uniform(n, 0, 128, 7)},       {"[1, 128], 10% empty", uniform(n, 1, 128, 9, 0.1)},
      {"equal 16", equal(n / 16, 16)},                   {"equal 64", equal(n / 64, 64)},
      {"equal 128", equal(n / 128, 128)},                {"uniform [0, 512]", uniform(n, 0, 512, 3)},
      {"uniform [0, 8]", uniform(n, 0, 8, 5)},           {"equal 4", equal(n / 4, 4)},
      {"[0, 3], 30% empty", uniform(n / 16, 0, 3, 4, 0.3)},
  };
  std::mt19937_64 gen(11);
  std::vector<float> h(n);
  for (float& v : h) v = float(double(gen() >> 11) * 0x1.0p-52 - 1.0);
  float *in = nullptr, *sink = nullptr;
  check(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&sink, sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  const unsigned grid = unsigned(sms * per_sm);
  int wrong_rows = 0;
  std::printf("%-22s %9s %10s %10s %8s %12s %12s %s\n", "shape", "segments", "warpfold", "flat", "read",
              "flat/wf", "flat/read", "wrong (wf, flat)");
  for (const shape& sh : shapes) {
    const uint64_t segments = sh.lens.size();
    std::vector<int> off(segments + 1, 0);
    for (uint64_t i = 0; i < segments; ++i) off[i + 1] = int(off[i] + sh.lens[i]);
    int* d_off = nullptr;
    float *out_wf = nullptr, *out_flat = nullptr;
    check(cudaMalloc(&d_off, off.size() * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&out_wf, segments * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&out_flat, segments * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(d_off, off.data(), off.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemset(out_flat, 0xff, segments * sizeof(float)), "cudaMemset");
    size_t bytes = 0;
    check(warpfold::segmented_reduce(nullptr, bytes, in, out_wf, segments, d_off, d_off + 1, warpfold::plus{}, 0.0f,
                                     stream),
          "segmented_reduce size");
    void* temp = nullptr;
    check(cudaMalloc(&temp, bytes), "cudaMalloc");
    const auto run = [&](int which) {
      if (which == 0) {
        size_t b = bytes;
        check(warpfold::segmented_reduce(temp, b, in, out_wf, segments, d_off, d_off + 1, warpfold::plus{}, 0.0f, stream),
              "segmented_reduce");
      } else if (which == 1) {
        flat_kernel<<<grid, kWarps * 32, 0, stream>>>(in, d_off, segments, out_flat);
        check(cudaGetLastError(), "flat_kernel");
      } else {
        read_kernel<<<unsigned(sms) * 8, 256, 0, stream>>>(reinterpret_cast<const float4*>(in), n / 4, sink);
        check(cudaGetLastError(), "read_kernel");
      }
    };
    run(0);
    run(1);
    check(cudaStreamSynchronize(stream), "first calls");
    std::vector<float> got_wf(segments), got_flat(segments);
    check(cudaMemcpy(got_wf.data(), out_wf, segments * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(got_flat.data(), out_flat, segments * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    int wrong_wf = 0, wrong_flat = 0;
    for (uint64_t i = 0; i < segments; ++i) {
      double sum = 0, magnitude = 0;
      for (int k = off[i]; k < off[i + 1]; ++k) {
        sum += h[k];
        magnitude += std::fabs(h[k]);
      }
      const double tolerance = 1e-5 * magnitude + 1e-6;
      wrong_wf += !(std::fabs(got_wf[i] - sum) <= tolerance);
      wrong_flat += !(std::fabs(got_flat[i] - sum) <= tolerance);
    }
    std::vector<float> times[3];
    for (int r = 0; r < rounds + 2; ++r) {
      for (int which = 0; which < 3; ++which) {
        check(cudaEventRecord(start, stream), "cudaEventRecord");
        for (int k = 0; k < 10; ++k) run(which);
        check(cudaEventRecord(stop, stream), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (r >= 2) times[which].push_back(ms * 100.0f);  // µs per call; two warm-up turns
      }
    }
    wrong_rows += (wrong_wf + wrong_flat) > 0;
    const float wf = median(times[0]), flat = median(times[1]), read = median(times[2]);
    std::printf("%-22s %9llu %10.2f %10.2f %8.2f %12.3f %12.3f %d %d\n", sh.name.c_str(),
                static_cast<unsigned long long>(segments), wf, flat, read, flat / wf, flat / read, wrong_wf, wrong_flat);
    check(cudaFree(d_off), "cudaFree");
    check(cudaFree(out_wf), "cudaFree");
    check(cudaFree(out_flat), "cudaFree");
    check(cudaFree(temp), "cudaFree");
  }
  if (wrong_rows > 0) std::fprintf(stderr, "%d shapes with wrong results\n", wrong_rows);
  return wrong_rows > 0 ? 1 : 0;
}
