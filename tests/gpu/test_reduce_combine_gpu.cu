// The combine's guarantees (detail/combine.cuh):
// - no partial of an earlier call is ever taken for this call's, whatever the temp storage holds:
//   another used temp storage copied over it (whole or a prefix), a checkpoint restored, the same
//   bytes at another offset, parts of it zeroed or set to 0xff, its epoch set back, and CUDA graph
//   replays after the temp storage served other calls; at grids of every kernel path;
// - a misuse (a partial that never arrives) ends with a status and a result that cannot pass for
//   a number, not a hang, and leaves the context usable (in a child process: the test shortens
//   the wait's bound through the environment before the first reduce);
// - reduces complete while another stream's kernel holds every SM but one.
#include "gpu/reduce_test_support.cuh"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

using detail::kernel_pick;

// A kernel path and a size whose grid it runs: one warp's combine (≤ 32 blocks), the block's
// combine (256 blocks, then several partials per combiner thread), the wide and the bulk kernel.
struct combine_path {
  const char* name;
  kernel_pick pick;
  uint64_t n;  // int32 elements
};
const combine_path kPaths[] = {{"narrow, 16 blocks", kernel_pick::narrow, 16 * 4096 + 3},
                               {"narrow, 256 blocks", kernel_pick::narrow, 300 * 4096 + 1},
                               {"narrow, every resident block", kernel_pick::narrow, (1u << 22) + 5},
                               {"wide", kernel_pick::wide, (1u << 22) + 7},
                               {"bulk", kernel_pick::bulk, (1u << 24) + 3}};

// A reduce of one path on one temp storage, summing int32 into int64.
class path_reduce {
 public:
  explicit path_reduce(const combine_path& path) : path_(path) {
    EXPECT_EQ(call(nullptr, bytes_, nullptr, nullptr), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&out_, sizeof(int64_t)), cudaSuccess);
  }
  path_reduce(path_reduce&& other) noexcept : path_(other.path_), bytes_(other.bytes_), out_(other.out_) {
    other.out_ = nullptr;
  }
  ~path_reduce() { cudaFree(out_); }
  size_t temp_bytes() const { return bytes_; }
  // The sum of `in` (path.n elements) through temp storage `temp`, on `stream`, waited for.
  int64_t sum(void* temp, const int32_t* in, cudaStream_t stream = 0) {
    EXPECT_EQ(cudaMemsetAsync(out_, 0x5a, sizeof(int64_t), stream), cudaSuccess);
    size_t bytes = bytes_;
    EXPECT_EQ(call(temp, bytes, in, stream), cudaSuccess);
    int64_t got = 0;
    EXPECT_EQ(cudaMemcpyAsync(&got, out_, sizeof(int64_t), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return got;
  }
  cudaError_t call(void* temp, size_t& bytes, const int32_t* in, cudaStream_t stream) {
    const auto run = [&](auto pick) {
      return detail::dispatch_reduce<decltype(pick)::value>(temp, bytes, in, out_, path_.n, int64_t(0), plus{},
                                                            detail::convert<identity>{}, stream);
    };
    switch (path_.pick) {
      case kernel_pick::narrow: return run(std::integral_constant<kernel_pick, kernel_pick::narrow>{});
      case kernel_pick::wide: return run(std::integral_constant<kernel_pick, kernel_pick::wide>{});
      case kernel_pick::bulk: return run(std::integral_constant<kernel_pick, kernel_pick::bulk>{});
      case kernel_pick::by_size: break;
    }
    return run(std::integral_constant<kernel_pick, kernel_pick::by_size>{});
  }
  int64_t* out() const { return out_; }

 private:
  combine_path path_;
  size_t bytes_ = 0;
  int64_t* out_ = nullptr;
};

// Inputs of one path: each its own random values in [1, 100], so that a partial taken from the
// wrong call changes the sum.
struct inputs {
  std::vector<std::vector<int32_t>> values;
  std::vector<int64_t> sums;
  std::vector<int32_t*> device;
  inputs(uint64_t n, int count, uint64_t seed) {
    for (int i = 0; i < count; ++i) {
      values.push_back(random_values<int32_t>(n, seed + uint64_t(i), 1, 100));
      int64_t s = 0;
      for (int32_t x : values.back()) s += x;
      sums.push_back(s);
      int32_t* d = nullptr;
      EXPECT_EQ(cudaMalloc(&d, n * sizeof(int32_t)), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(d, values.back().data(), n * sizeof(int32_t), cudaMemcpyHostToDevice), cudaSuccess);
      device.push_back(d);
    }
  }
  inputs(inputs&& other) noexcept
      : values(std::move(other.values)), sums(std::move(other.sums)), device(std::move(other.device)) {
    other.device.clear();
  }
  ~inputs() {
    for (int32_t* d : device) cudaFree(d);
  }
};

// Device memory as cudaMalloc hands it over (written once under initcheck: harness/sanitizer.hpp).
struct device_bytes {
  void* p = nullptr;
  explicit device_bytes(size_t bytes) {
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    EXPECT_EQ(harness::prepare_fresh_temp(p, bytes), cudaSuccess);
  }
  device_bytes(device_bytes&& other) noexcept : p(other.p) { other.p = nullptr; }
  ~device_bytes() { cudaFree(p); }
  unsigned char* bytes() const { return static_cast<unsigned char*>(p); }
};

// Runs `scenario(reduce, data, seed)` on every path whose size the run allows; in a representative
// run on one of them, the `turn`-th (the scenarios below take turns 0, 1, ...: between them,
// every path).
void on_every_path(unsigned turn, const std::function<void(path_reduce&, const inputs&, uint64_t)>& scenario) {
  WARPFOLD_REQUIRE_GPU();
  std::vector<const combine_path*> paths;
  for (const combine_path& path : kPaths) {
    if (path.n <= max_test_n()) paths.push_back(&path);
  }
  if (paths.empty()) GTEST_SKIP() << "every path's size is above WARPFOLD_TEST_MAX_N";
  if (representative_run()) paths = {paths[turn % paths.size()]};
  for (const combine_path* path : paths) {
    SCOPED_TRACE(path->name);
    const uint64_t seed = new_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    path_reduce reduce(*path);
    const inputs data(path->n, 4, seed);
    scenario(reduce, data, seed);
  }
}

TEST(ReduceCombine, AnotherUsedTempStorageCopiedOverItWholeOrInPart) {
  on_every_path(0, [](path_reduce& r, const inputs& d, uint64_t) {
    const size_t bytes = r.temp_bytes();
    device_bytes t1(bytes), t2(bytes);
    ASSERT_EQ(r.sum(t1.p, d.device[0]), d.sums[0]);
    ASSERT_EQ(r.sum(t2.p, d.device[1]), d.sums[1]);
    ASSERT_EQ(cudaMemcpy(t2.p, t1.p, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);  // t1's words, epoch included
    EXPECT_EQ(r.sum(t2.p, d.device[2]), d.sums[2]);
    ASSERT_EQ(r.sum(t1.p, d.device[0]), d.sums[0]);
    ASSERT_EQ(cudaMemcpy(t2.p, t1.p, bytes / 2, cudaMemcpyDeviceToDevice), cudaSuccess);  // a prefix
    EXPECT_EQ(r.sum(t2.p, d.device[3]), d.sums[3]);
  });
}

// The failure of an epoch kept in temp storage alone: set back, it let the next reduce take the
// partials an earlier reduce had left there for its own.
TEST(ReduceCombine, ACheckpointRestoredOrTheEpochSetBack) {
  on_every_path(1, [](path_reduce& r, const inputs& d, uint64_t) {
    const size_t bytes = r.temp_bytes();
    device_bytes temp(bytes), before(bytes), after(bytes);
    ASSERT_EQ(r.sum(temp.p, d.device[0]), d.sums[0]);
    ASSERT_EQ(cudaMemcpy(before.p, temp.p, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    ASSERT_EQ(r.sum(temp.p, d.device[1]), d.sums[1]);
    ASSERT_EQ(cudaMemcpy(after.p, temp.p, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    // The epoch word alone set back: the last reduce's partials stay, with the tag it used.
    ASSERT_EQ(cudaMemcpy(temp.p, before.p, sizeof(unsigned long long), cudaMemcpyDeviceToDevice), cudaSuccess);
    EXPECT_EQ(r.sum(temp.p, d.device[2]), d.sums[2]);
    // The whole checkpoint taken after the second reduce, restored.
    ASSERT_EQ(cudaMemcpy(temp.p, after.p, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    EXPECT_EQ(r.sum(temp.p, d.device[3]), d.sums[3]);
    ASSERT_EQ(cudaMemcpy(temp.p, before.p, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    EXPECT_EQ(r.sum(temp.p, d.device[0]), d.sums[0]);
  });
}

// A pool handing the same bytes back at another offset: the partials of one call sit one or
// several words off where the next call looks.
TEST(ReduceCombine, TheSameBytesHandedBackAtAnotherOffset) {
  on_every_path(4, [](path_reduce& r, const inputs& d, uint64_t) {
    device_bytes pool(r.temp_bytes() + 256);
    int turn = 0;
    for (size_t offset : {0, 8, 16, 0, 24, 8, 128}) {
      const int i = turn++ % 4;
      EXPECT_EQ(r.sum(pool.bytes() + offset, d.device[i]), d.sums[i]) << "offset " << offset;
    }
  });
}

TEST(ReduceCombine, PartsOfTheTempStorageZeroedOrSet) {
  on_every_path(3, [](path_reduce& r, const inputs& d, uint64_t seed) {
    const size_t bytes = r.temp_bytes();
    device_bytes temp(bytes);
    ASSERT_EQ(r.sum(temp.p, d.device[0]), d.sums[0]);
    const size_t header = detail::kHeaderWords * sizeof(unsigned long long);
    const struct {
      size_t from, count;
      int value;
    } writes[] = {{0, 8, 0}, {0, header, 0}, {0, bytes, 0}, {header, bytes - header, 0xff},
                  {8, bytes / 3, 0}, {0, 8, 0xff}, {header + 8 * (seed % 7), 64, 0x00}};
    int i = 1;
    for (const auto& w : writes) {
      ASSERT_EQ(r.sum(temp.p, d.device[i % 4]), d.sums[i % 4]);
      ++i;
      ASSERT_EQ(cudaMemset(static_cast<unsigned char*>(temp.p) + w.from, w.value, std::min(w.count, bytes - w.from)),
                cudaSuccess);
      EXPECT_EQ(r.sum(temp.p, d.device[i % 4]), d.sums[i % 4]) << "after setting bytes " << w.from << " + " << w.count
                                                              << " to " << w.value;
      ++i;
    }
  });
}

// A reduce of one path captured into graphs on one temp storage and one input buffer, whose
// contents a replay sets from one of the inputs before the graph runs.
class captured_reduce {
 public:
  captured_reduce(path_reduce& r, const inputs& d, void* temp) : r_(r), d_(d), temp_(temp) {
    EXPECT_EQ(cudaMalloc(&in_, bytes_of_input()), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  ~captured_reduce() {
    for (auto exec : execs_) cudaGraphExecDestroy(exec);
    cudaStreamDestroy(stream_);
    cudaFree(in_);
  }
  // A graph of the reduce, then `after(stream)` (more captured work); its index.
  template <class After>
  size_t capture(After&& after) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    size_t bytes = r_.temp_bytes();
    const cudaError_t captured = r_.call(temp_, bytes, in_, stream_);
    const cudaError_t more = after(stream_);
    EXPECT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
    EXPECT_EQ(captured, cudaSuccess);
    EXPECT_EQ(more, cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    cudaGraphDestroy(graph);
    execs_.push_back(exec);
    return execs_.size() - 1;
  }
  size_t capture() {
    return capture([](cudaStream_t) { return cudaSuccess; });
  }
  // Graph `g` replayed on input `data`: its sum.
  int64_t replay(size_t g, int data) {
    EXPECT_EQ(cudaMemcpyAsync(in_, d_.device[data], bytes_of_input(), cudaMemcpyDeviceToDevice, stream_), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(r_.out(), 0x5a, sizeof(int64_t), stream_), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(execs_.at(g), stream_), cudaSuccess);
    int64_t got = 0;
    EXPECT_EQ(cudaMemcpyAsync(&got, r_.out(), sizeof(int64_t), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    return got;
  }

 private:
  size_t bytes_of_input() const { return d_.values[0].size() * sizeof(int32_t); }
  path_reduce& r_;
  const inputs& d_;
  void* temp_;
  int32_t* in_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaGraphExec_t> execs_;
};

// A captured reduce replays its frozen arguments; its input changes between replays, and direct
// calls and a second captured reduce use the same temp storage between them.
TEST(ReduceCombine, GraphReplaysAfterTheTempStorageServedOtherCalls) {
  on_every_path(2, [](path_reduce& r, const inputs& d, uint64_t) {
    device_bytes temp(r.temp_bytes());
    captured_reduce graphs(r, d, temp.p);
    const size_t first = graphs.capture(), second = graphs.capture();
    for (int round = 0; round < 6; ++round) {
      EXPECT_EQ(graphs.replay(first, round % 4), d.sums[round % 4]) << "replay " << round;
      EXPECT_EQ(graphs.replay(first, (round + 1) % 4), d.sums[(round + 1) % 4]) << "replay " << round << ", again";
      EXPECT_EQ(r.sum(temp.p, d.device[(round + 2) % 4]), d.sums[(round + 2) % 4]) << "direct call " << round;
      EXPECT_EQ(graphs.replay(second, (round + 3) % 4), d.sums[(round + 3) % 4]) << "second graph " << round;
    }
  });
}

// A graph whose memory is reused between replays (as a framework's graph pool does): after the
// captured reduce, the graph itself writes the same bytes over the temp storage's header, so every
// replay finds the epoch the last one found. Each replay's sum is still exact.
TEST(ReduceCombine, GraphReplaysWhenTheGraphRewritesTheTempStorageBetweenThem) {
  on_every_path(5, [](path_reduce& r, const inputs& d, uint64_t) {
    device_bytes temp(r.temp_bytes());
    captured_reduce graphs(r, d, temp.p);
    const size_t g = graphs.capture([&](cudaStream_t stream) {
      return cudaMemsetAsync(temp.p, 0x3c, detail::kHeaderWords * sizeof(unsigned long long), stream);
    });
    for (int replay = 0; replay < 8; ++replay) EXPECT_EQ(graphs.replay(g, replay % 4), d.sums[replay % 4]) << "replay " << replay;
  });
}

// --- A misuse ends ----------------------------------------------------------------------------

// A sum whose block 0 waits at its first addition until *gate (mapped host memory) opens, so that
// block 0's partial arrives only when the host says, or never within the combine's bound.
struct block_zero_gated_plus {
  const volatile int* gate;
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const {
#ifdef __CUDA_ARCH__
    if (blockIdx.x == 0) {
      while (*gate == 0) {
      }
    }
#endif
    return a + b;
  }
};

// In a child process whose combine bound is 300 ms: a reduce whose block 0 is held must end (the
// combiner gives up), write -1 (every byte 0xff) for its int64 sum, report cudaErrorLaunchTimeout
// through last_combine_status, and leave the context usable: the next reduce on the same temp
// storage is exact and its status is cudaSuccess. Exits 0 only if all of that held.
void stalled_combine_in_child() {
  setenv("WARPFOLD_COMBINE_TIMEOUT_MS", "300", 1);
  const auto fail = [](const char* what) {
    std::fprintf(stderr, "stalled combine: %s\n", what);
    std::exit(1);
  };
  int* gate = nullptr;
  int64_t* out = nullptr;  // mapped: readable while the kernel still runs
  if (cudaHostAlloc(&gate, sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
      cudaHostAlloc(&out, sizeof(int64_t), cudaHostAllocMapped) != cudaSuccess) {
    fail("mapped host memory");
  }
  *gate = 0;
  *out = 12345;
  int* d_gate = nullptr;
  int64_t* d_out = nullptr;
  cudaHostGetDevicePointer(&d_gate, gate, 0);
  cudaHostGetDevicePointer(&d_out, out, 0);
  const uint64_t n = 8 * 4096;  // eight narrow blocks: block 0 held, block 7 combines
  std::vector<int32_t> values = random_values<int32_t>(n, new_seed(), 1, 100);
  int64_t expected = 0;
  for (int32_t x : values) expected += x;
  int32_t* in = nullptr;
  void* temp = nullptr;
  size_t bytes = 0;
  const block_zero_gated_plus op{d_gate};
  if (cudaMalloc(&in, n * sizeof(int32_t)) != cudaSuccess ||
      cudaMemcpy(in, values.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice) != cudaSuccess ||
      reduce(nullptr, bytes, in, d_out, n, op, int64_t(0)) != cudaSuccess || cudaMalloc(&temp, bytes) != cudaSuccess) {
    fail("set-up");
  }
  if (reduce(temp, bytes, in, d_out, n, op, int64_t(0)) != cudaSuccess) fail("launch");
  const auto start = std::chrono::steady_clock::now();
  while (*static_cast<volatile int64_t*>(out) == 12345) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) fail("no result within 20 s: a hang");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  *static_cast<volatile int*>(gate) = 1;  // block 0 may finish now
  if (cudaDeviceSynchronize() != cudaSuccess) fail("the context was lost");
  if (*out != -1) fail("the result is not the stalled sentinel (-1)");
  if (last_combine_status(temp) != cudaErrorLaunchTimeout) fail("last_combine_status did not report the stall");
  *out = 0;
  if (reduce(temp, bytes, in, d_out, n, plus{}, int64_t(0)) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    fail("the next reduce");
  if (*out != expected) fail("the next reduce on the same temp storage is not exact");
  if (last_combine_status(temp) != cudaSuccess) fail("the status after a good reduce");
  std::fprintf(stderr, "stalled combine reported\n");
  std::exit(0);
}

TEST(ReduceCombineStallDeathTest, AStalledCombineEndsWithAStatusNotAHang) {
  WARPFOLD_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: its first reduce reads the bound
  EXPECT_EXIT(stalled_combine_in_child(), ::testing::ExitedWithCode(0), "stalled combine reported");
}

// --- Forward progress -------------------------------------------------------------------------

// One block per SM (it asks for nearly all of an SM's shared memory), spinning until *gate opens
// or its own bound (on the GPU's clock) passes; it counts itself in *running on arrival.
__global__ void hold_an_sm(const volatile int* gate, int* running, unsigned long long bound_ns) {
  extern __shared__ unsigned char hog[];
  if (threadIdx.x != 0) return;
  hog[0] = 1;
  atomicAdd_system(running, 1);
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (*gate == 0 && now - start < bound_ns);
}

// The combine assumes that the blocks of a grid that started before its last block finish
// without waiting for it: reduces of every path complete while another stream's kernel holds
// every SM but one, their blocks running through that one SM.
TEST(ReduceCombine, CompletesWhileAnotherKernelHoldsEverySmButOne) {
  WARPFOLD_REQUIRE_GPU();
  int device = 0, sms = 0, smem = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(hold_an_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), cudaSuccess);
  int *gate = nullptr, *running = nullptr;
  ASSERT_EQ(cudaHostAlloc(&gate, sizeof(int), cudaHostAllocMapped), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(&running, sizeof(int), cudaHostAllocMapped), cudaSuccess);
  *gate = 0;
  *running = 0;
  int *d_gate = nullptr, *d_running = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&d_gate, gate, 0), cudaSuccess);
  ASSERT_EQ(cudaHostGetDevicePointer(&d_running, running, 0), cudaSuccess);
  cudaStream_t holder = nullptr, work = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&holder, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking), cudaSuccess);
  // Everything allocated before the SMs are held: freeing memory may wait for the device.
  struct prepared {
    path_reduce reduce;
    inputs data;
    device_bytes temp;
  };
  std::vector<std::unique_ptr<prepared>> runs;
  for (const combine_path& path : kPaths) {
    if (path.n > max_test_n()) continue;
    path_reduce r(path);
    const size_t bytes = r.temp_bytes();
    runs.push_back(std::unique_ptr<prepared>(new prepared{std::move(r), inputs(path.n, 1, new_seed()), device_bytes(bytes)}));
  }
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), cudaSuccess);
  hold_an_sm<<<sms - 1, 32, smem, holder>>>(d_gate, d_running, 60'000'000'000ull);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto start = std::chrono::steady_clock::now();
  while (*static_cast<volatile int*>(running) < sms - 1) {
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "the holding blocks did not start";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& run : runs) {
    size_t bytes = run->reduce.temp_bytes();
    ASSERT_EQ(run->reduce.call(run->temp.p, bytes, run->data.device[0], work), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(done, work), cudaSuccess);
    const auto begun = std::chrono::steady_clock::now();
    cudaError_t state = cudaErrorNotReady;
    while ((state = cudaEventQuery(done)) == cudaErrorNotReady &&
           std::chrono::steady_clock::now() - begun < std::chrono::seconds(20)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(state, cudaSuccess) << "a reduce of " << run->data.values[0].size()
                                  << " elements did not complete while every SM but one was held";
    int64_t got = 0;
    ASSERT_EQ(cudaMemcpyAsync(&got, run->reduce.out(), sizeof(int64_t), cudaMemcpyDeviceToHost, work), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(work), cudaSuccess);
    EXPECT_EQ(got, run->data.sums[0]);
    EXPECT_EQ(last_combine_status(run->temp.p, work), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamQuery(holder), cudaErrorNotReady) << "the holding kernel ended before the reduces did";
  *static_cast<volatile int*>(gate) = 1;
  ASSERT_EQ(cudaStreamSynchronize(holder), cudaSuccess);
  cudaEventDestroy(done);
  cudaStreamDestroy(holder);
  cudaStreamDestroy(work);
  cudaFreeHost(gate);
  cudaFreeHost(running);
}

}  // namespace
