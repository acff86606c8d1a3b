// Times warpfold::reproducible_sum against warpfold::reduce's plain sum (warpfold::plus) over the
// same buffer in one process: 2^28 floats (1 GiB) and 2^27 doubles unless told otherwise; the
// reproducible sum also through each kernel named (narrow, wide, bulk), where the dispatch picks
// by size. Each call is timed alone with CUDA events, after warm-up calls, the sums taking turns
// in an order rotated each round; a row gives the median, min and max, the median's bandwidth and
// its share of the plain sum's (the plain median over this median). The data is uniform in
// [-1, 1) from a hash of the index, the same on every GPU, so the printed result bits can be
// compared across GPUs and builds; the program exits 4 unless they are the same with the data
// moved 1 to 3 elements along and through every kernel.
//
//   cmake --build build --target warpfold_repro_timing
//   build/bench/warpfold_repro_timing [--reps N] [--log2-floats K] [--log2-doubles K]
#include "harness/splitmix64.hpp"

#include <warpfold/reduce.cuh>
#include <warpfold/reproducible.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "warpfold_repro_timing: %s: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

// Uniform in [-1, 1) from splitmix64's finaliser of the index.
template <class T>
__global__ void fill_uniform(T* out, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = T(double(warpfold::harness::mix64(i ^ 0x5eed)) * 0x1p-63 - 1.0);
}

struct options {
  int reps = 21;
  int log2_floats = 28;
  int log2_doubles = 27;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--reps" && has_value) o.reps = std::atoi(argv[++i]);
    else if (arg == "--log2-floats" && has_value) o.log2_floats = std::atoi(argv[++i]);
    else if (arg == "--log2-doubles" && has_value) o.log2_doubles = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: warpfold_repro_timing [--reps N] [--log2-floats K] [--log2-doubles K]\n");
      std::exit(2);
    }
  }
  if (o.reps < 1 || o.log2_floats < 1 || o.log2_floats > 32 || o.log2_doubles < 1 || o.log2_doubles > 31) {
    std::fprintf(stderr, "warpfold_repro_timing: reps must be at least 1, sizes 2^1 to 2^32 floats, 2^31 doubles\n");
    std::exit(2);
  }
  return o;
}

struct timing {
  double median_us, min_us, max_us;
};

timing summarize(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front(), us.back()};
}

// One two-phase warpfold call, `run(temp, bytes)`, with its temp storage.
class two_phase {
 public:
  template <class Run>
  explicit two_phase(Run run) {
    check(run(nullptr, bytes_), "temp size query");
    check(cudaMalloc(&temp_, bytes_), "cudaMalloc temp");
  }
  ~two_phase() { cudaFree(temp_); }
  void* temp() const { return temp_; }
  size_t& bytes() { return bytes_; }

 private:
  void* temp_ = nullptr;
  size_t bytes_ = 0;
};

// One timed call: a name and the call on its temp storage.
struct variant {
  std::string name;
  std::function<cudaError_t(void*, size_t&)> run;
};

template <class T>
void run_case(const char* type, uint64_t n, int reps) {
  using warpfold::detail::kernel_pick;
  using result_t = warpfold::reproducible_sum_t<T>;
  T* data = nullptr;
  T* moved = nullptr;  // the same values 1 to 3 elements along
  T* plain_out = nullptr;
  result_t* out = nullptr;
  check(cudaMalloc(&data, n * sizeof(T)), "cudaMalloc data");
  check(cudaMalloc(&moved, (n + 3) * sizeof(T)), "cudaMalloc moved data");
  check(cudaMalloc(&plain_out, sizeof(T)), "cudaMalloc out");
  check(cudaMalloc(&out, sizeof(result_t)), "cudaMalloc out");
  fill_uniform<<<1024, 256>>>(data, n);
  check(cudaGetLastError(), "fill");

  // The plain sum, reproducible_sum, and reproducible_sum through each named kernel (the
  // dispatch picks by size; the named rows show what the others would give).
  const auto repro = [&](auto pick) {
    return [&, pick](void* t, size_t& b) {
      return warpfold::detail::dispatch_reproducible_sum<decltype(pick)::value>(t, b, data, out, n, cudaStream_t{});
    };
  };
  std::vector<variant> variants{
      {"plain sum", [&](void* t, size_t& b) { return warpfold::reduce(t, b, data, plain_out, n, warpfold::plus{}, T(0)); }},
      {"reproducible", repro(std::integral_constant<kernel_pick, kernel_pick::by_size>{})},
      {"  narrow", repro(std::integral_constant<kernel_pick, kernel_pick::narrow>{})},
      {"  wide", repro(std::integral_constant<kernel_pick, kernel_pick::wide>{})},
      {"  bulk", repro(std::integral_constant<kernel_pick, kernel_pick::bulk>{})}};
  std::vector<std::unique_ptr<two_phase>> temps;
  for (const variant& v : variants) temps.push_back(std::make_unique<two_phase>(v.run));
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const auto time_one = [&](size_t k) {
    check(cudaEventRecord(start), "event record");
    check(variants[k].run(temps[k]->temp(), temps[k]->bytes()), "sum");
    check(cudaEventRecord(stop), "event record");
    check(cudaEventSynchronize(stop), "event sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed time");
    return 1000.0 * ms;
  };
  for (int w = 0; w < 3; ++w)
    for (size_t k = 0; k < variants.size(); ++k) time_one(k);
  std::vector<std::vector<double>> us(variants.size());
  for (int r = 0; r < reps; ++r) {  // each round in another order
    for (size_t j = 0; j < variants.size(); ++j) {
      const size_t k = (j + size_t(r)) % variants.size();
      us[k].push_back(time_one(k));
    }
  }

  // The result by the dispatch's kernel, and the same bits with the data 1, 2 and 3 elements
  // along (other alignments, other heads and tails) and through every named kernel.
  const auto reproducible_bits = [&](const T* in) {
    check(warpfold::reproducible_sum(temps[1]->temp(), temps[1]->bytes(), in, out, n), "sum");
    result_t r;
    check(cudaMemcpy(&r, out, sizeof(r), cudaMemcpyDeviceToHost), "result copy");
    return r;
  };
  const result_t sum = reproducible_bits(data);
  bool same_everywhere = true;
  for (int offset = 1; offset <= 3; ++offset) {
    check(cudaMemcpy(moved + offset, data, n * sizeof(T), cudaMemcpyDeviceToDevice), "move data");
    const result_t r = reproducible_bits(moved + offset);
    same_everywhere = same_everywhere && std::memcmp(&r, &sum, sizeof(r)) == 0;
  }
  for (size_t k = 2; k < variants.size(); ++k) {
    check(variants[k].run(temps[k]->temp(), temps[k]->bytes()), "sum");
    result_t r;
    check(cudaMemcpy(&r, out, sizeof(r), cudaMemcpyDeviceToHost), "result copy");
    same_everywhere = same_everywhere && std::memcmp(&r, &sum, sizeof(r)) == 0;
  }

  const double gb = double(n) * sizeof(T) / 1e9;
  const double plain_median = summarize(us[0]).median_us;
  for (size_t k = 0; k < variants.size(); ++k) {
    const timing t = summarize(us[k]);
    std::printf("%-6s 2^%-3d %-13s %10.1f %10.1f %10.1f %8.0f %8.3f\n", type, int(std::log2(double(n))),
                variants[k].name.c_str(), t.median_us, t.min_us, t.max_us, gb / (t.median_us * 1e-6),
                plain_median / t.median_us);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, &sum, sizeof(sum));
  std::printf("%-6s reproducible result %.17g, bits 0x%0*llx, the same at offsets 1-3 and by every kernel: %s\n",
              type, double(sum), int(2 * sizeof(sum)), (unsigned long long)bits, same_everywhere ? "yes" : "NO");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(data);
  cudaFree(moved);
  cudaFree(plain_out);
  cudaFree(out);
  if (!same_everywhere) {
    std::fprintf(stderr, "warpfold_repro_timing: the reproducible %s sum changed with the offset or the kernel\n", type);
    std::exit(4);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("%s, %d SMs, sm_%d%d; %d reps after 3 warm-ups, times in us (median, min-max)\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, o.reps);
  std::printf("%-6s %-5s %-13s %10s %10s %10s %8s %8s\n", "type", "n", "sum", "median us", "min us", "max us", "GB/s",
              "share");
  run_case<float>("float", uint64_t(1) << o.log2_floats, o.reps);
  run_case<double>("double", uint64_t(1) << o.log2_doubles, o.reps);
  return 0;
}
