// warpfold::reduce calls that overlap on the device share no state: a reduce held up mid-run
// while hundreds of others run, a reduce captured in a CUDA graph replayed beside direct calls,
// and argument errors (misaligned output or temp storage, a type whose alignment is below its
// size at an offset that is not a multiple of its size).
#include "gpu/reduce_test_support.cuh"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <string>
#include <thread>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

// An associative, commutative sum that waits for *gate (host memory mapped into the device) to
// open before its first addition: it holds a reduce mid-run for as long as the host wants.
struct gated_plus {
  const volatile int* gate;
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const {
#ifdef __CUDA_ARCH__
    while (*gate == 0) {
    }
#endif
    return a + b;
  }
};

// A device buffer of int32 values 1..100 with its exact sum.
struct summed_input {
  std::vector<int32_t> values;
  int64_t sum = 0;
  summed_input(uint64_t n, uint64_t seed) : values(random_values<int32_t>(n, seed, 1, 100)) {
    for (int32_t x : values) sum += x;
  }
};

// One reduce is held mid-run (its six blocks wait in the operator) while 1100 others, more than
// any fixed pool of per-reduce slots would hold, run and finish on another stream: every result
// is exact, the held one's too once released. Under compute-sanitizer, which runs kernels one at
// a time, the others cannot pass the held one: the test checks the results only, of fewer calls
// in a representative run, after a short wait.
TEST(ReduceConcurrency, AReduceHeldMidRunSharesNothingWithTheCallsThatPassIt) {
  WARPFOLD_REQUIRE_GPU();
  int* gate_host = nullptr;
  ASSERT_EQ(cudaHostAlloc(&gate_host, sizeof(int), cudaHostAllocMapped), cudaSuccess);
  *gate_host = 0;
  int* gate_device = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&gate_device, gate_host, 0), cudaSuccess);

  const uint64_t seed = new_seed();
  const summed_input held(5 * 4096 + 5, seed);  // five blocks of the narrow kernel at offset 1
  const summed_input small(40000, seed + 1);    // ten blocks
  offset_buffer<int32_t> held_in(held.values, 1), small_in(small.values, 2);

  cudaStream_t held_stream = nullptr, other_stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&held_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&other_stream, cudaStreamNonBlocking), cudaSuccess);
  const gated_plus op{gate_device};
  size_t held_bytes = 0, small_bytes = 0;
  ASSERT_EQ(reduce(nullptr, held_bytes, held_in.get(), static_cast<int64_t*>(nullptr), held.values.size(), op,
                   int64_t(0)),
            cudaSuccess);
  ASSERT_EQ(reduce(nullptr, small_bytes, small_in.get(), static_cast<int64_t*>(nullptr), small.values.size(), plus{},
                   int64_t(0)),
            cudaSuccess);
  void *held_temp = nullptr, *small_temp = nullptr;
  int64_t *held_out = nullptr, *small_out = nullptr;
  const int kCalls = representative_run() ? 64 : 1100;
  ASSERT_EQ(cudaMalloc(&held_temp, held_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&small_temp, small_bytes), cudaSuccess);
  ASSERT_EQ(harness::prepare_fresh_temp(held_temp, held_bytes), cudaSuccess);
  ASSERT_EQ(harness::prepare_fresh_temp(small_temp, small_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&held_out, sizeof(int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&small_out, kCalls * sizeof(int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMemset(small_out, 0x5a, kCalls * sizeof(int64_t)), cudaSuccess);

  // One call of the passing reduce first: under lazy module loading (CUDA's default) a kernel's
  // first launch waits for the kernels already running, the held one included.
  ASSERT_EQ(reduce(small_temp, small_bytes, small_in.get(), small_out, small.values.size(), plus{}, int64_t(0),
                   other_stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(other_stream), cudaSuccess);
  ASSERT_EQ(reduce(held_temp, held_bytes, held_in.get(), held_out, held.values.size(), op, int64_t(0), held_stream),
            cudaSuccess);
  // The other calls come from a thread of their own, reusing one temp storage in stream order,
  // each writing its own output slot. Where kernels run one at a time (under compute-sanitizer,
  // whose launches may even wait for the kernel before), they queue behind the held reduce: after
  // a while the gate opens anyway and the test says that it could not check the overlap.
  std::atomic<bool> others_done{false};
  std::atomic<cudaError_t> others_error{cudaSuccess};
  std::thread others([&] {
    cudaError_t rc = cudaSuccess;
    for (int c = 0; c < kCalls && rc == cudaSuccess; ++c)
      rc = reduce(small_temp, small_bytes, small_in.get(), small_out + c, small.values.size(), plus{}, int64_t(0),
                  other_stream);
    if (rc == cudaSuccess) rc = cudaStreamSynchronize(other_stream);
    others_error = rc;
    others_done = true;
  });
  const bool serialised = !harness::sanitizer_tool().empty();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(serialised ? 1 : 20);
  while (!others_done && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const bool overlapped = others_done;
  if (overlapped) EXPECT_EQ(cudaStreamQuery(held_stream), cudaErrorNotReady) << "the held reduce should still be waiting";
  *static_cast<volatile int*>(gate_host) = 1;
  others.join();
  ASSERT_EQ(others_error.load(), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(held_stream), cudaSuccess);

  std::vector<int64_t> got(kCalls);
  ASSERT_EQ(cudaMemcpy(got.data(), small_out, kCalls * sizeof(int64_t), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int c = 0; c < kCalls; ++c) ASSERT_EQ(got[c], small.sum) << "call " << c << ", seed " << seed + 1;
  int64_t held_got = 0;
  ASSERT_EQ(cudaMemcpy(&held_got, held_out, sizeof(int64_t), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(held_got, held.sum) << "seed " << seed;

  cudaFree(held_temp);
  cudaFree(small_temp);
  cudaFree(held_out);
  cudaFree(small_out);
  cudaStreamDestroy(held_stream);
  cudaStreamDestroy(other_stream);
  cudaFreeHost(gate_host);
  if (!overlapped) GTEST_SKIP() << "kernels did not run concurrently here (a sanitizer serialises them): results checked, overlap not";
}

// A reduce captured in a graph keeps the arguments of its capture; replayed again and again
// while direct calls run beside it on another stream, both stay exact (a representative run
// replays it a few times: its kernels run one at a time there anyway).
TEST(ReduceConcurrency, GraphReplaysBesideDirectCallsStayExact) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  const summed_input a((1u << 18) + 3, seed), b((1u << 17) + 9, seed + 1);
  offset_buffer<int32_t> a_in(a.values, 3), b_in(b.values, 0);
  size_t a_bytes = 0, b_bytes = 0;
  ASSERT_EQ(reduce(nullptr, a_bytes, a_in.get(), static_cast<int64_t*>(nullptr), a.values.size(), plus{}, int64_t(0)),
            cudaSuccess);
  ASSERT_EQ(reduce(nullptr, b_bytes, b_in.get(), static_cast<int64_t*>(nullptr), b.values.size(), plus{}, int64_t(0)),
            cudaSuccess);
  void *a_temp = nullptr, *b_temp = nullptr;
  int64_t *a_out = nullptr, *b_out = nullptr;
  ASSERT_EQ(cudaMalloc(&a_temp, a_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b_temp, b_bytes), cudaSuccess);
  ASSERT_EQ(harness::prepare_fresh_temp(a_temp, a_bytes), cudaSuccess);
  ASSERT_EQ(harness::prepare_fresh_temp(b_temp, b_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&a_out, sizeof(int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b_out, sizeof(int64_t)), cudaSuccess);
  cudaStream_t graph_stream = nullptr, direct_stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&graph_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&direct_stream, cudaStreamNonBlocking), cudaSuccess);

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(graph_stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const cudaError_t captured = reduce(a_temp, a_bytes, a_in.get(), a_out, a.values.size(), plus{}, int64_t(0), graph_stream);
  ASSERT_EQ(cudaStreamEndCapture(graph_stream, &graph), cudaSuccess);
  ASSERT_EQ(captured, cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  const int rounds = representative_run() ? 8 : 700;
  for (int round = 0; round < rounds; ++round) {
    ASSERT_EQ(cudaMemsetAsync(a_out, 0x5a, sizeof(int64_t), graph_stream), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, graph_stream), cudaSuccess);
    ASSERT_EQ(reduce(b_temp, b_bytes, b_in.get(), b_out, b.values.size(), plus{}, int64_t(0), direct_stream),
              cudaSuccess);
    int64_t got_a = 0, got_b = 0;
    ASSERT_EQ(cudaMemcpyAsync(&got_a, a_out, sizeof(int64_t), cudaMemcpyDeviceToHost, graph_stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(&got_b, b_out, sizeof(int64_t), cudaMemcpyDeviceToHost, direct_stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(graph_stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(direct_stream), cudaSuccess);
    ASSERT_EQ(got_a, a.sum) << "graph replay " << round << ", seed " << seed;
    ASSERT_EQ(got_b, b.sum) << "direct call " << round << ", seed " << seed + 1;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(graph_stream);
  cudaStreamDestroy(direct_stream);
  cudaFree(a_temp);
  cudaFree(b_temp);
  cudaFree(a_out);
  cudaFree(b_out);
}

// An 8-byte type with 4-byte alignment, 4 bytes past a 16-byte boundary: no whole number of
// elements reaches the next boundary, so it must be read element by element (not as vectors,
// which would fault). Through transform_reduce, every element's x + y.
struct float_pair {
  float x, y;
};
struct pair_sum {
  __host__ __device__ double operator()(const float_pair& p) const { return double(p.x) + double(p.y); }
};

TEST(ReduceConcurrency, TypesAlignedBelowTheirSizeAtAnyElementOffset) {
  WARPFOLD_REQUIRE_GPU();
  static_assert(alignof(float_pair) < sizeof(float_pair));
  for (uint64_t n : {uint64_t(1), uint64_t(33), uint64_t(4097), uint64_t(100003)}) {
    const uint64_t seed = new_seed();
    const auto xs = exact_sum_data<float>()(2 * n, seed);
    std::vector<float_pair> pairs(n);
    double expected = 0.5;
    for (uint64_t i = 0; i < n; ++i) {
      pairs[i] = {xs[2 * i], xs[2 * i + 1]};
      expected += double(xs[2 * i]) + double(xs[2 * i + 1]);
    }
    // Offsets in floats: 0 and 2 keep the pairs 8-byte aligned, 1 and 3 do not. The floats
    // around the pairs are NaN, so a read past either end shows in the result.
    std::vector<float> flat(2 * n + 3);
    for (size_t off : {0u, 1u, 2u, 3u}) {
      std::fill(flat.begin(), flat.end(), std::numeric_limits<float>::quiet_NaN());
      for (uint64_t i = 0; i < n; ++i) {
        flat[off + 2 * i] = pairs[i].x;
        flat[off + 2 * i + 1] = pairs[i].y;
      }
      offset_buffer<float> buf(flat, 0);
      const auto* in = reinterpret_cast<const float_pair*>(buf.get() + off);
      const double got = run_two_phase<double>([&](void* t, size_t& bytes, double* o) {
        return transform_reduce(t, bytes, in, o, n, plus{}, pair_sum{}, 0.5);
      });
      ASSERT_EQ(got, expected) << where(n, off, seed) << " (offset in floats)";
    }
  }
}

// Misaligned output or temp storage is an argument error, returned before any launch.
TEST(ReduceConcurrency, MisalignedOutputOrTempIsAnError) {
  WARPFOLD_REQUIRE_GPU();
  const uint64_t seed = new_seed();
  const std::vector<double> data = exact_sum_data<double>()(1000, seed);
  double expected = 0;
  for (double x : data) expected += x;  // exact: quarters
  offset_buffer<double> in(data, 0);
  size_t bytes = 0;
  ASSERT_EQ(reduce(nullptr, bytes, in.get(), static_cast<double*>(nullptr), data.size(), plus{}, 0.0), cudaSuccess);
  char* temp = nullptr;
  char* out = nullptr;
  ASSERT_EQ(cudaMalloc(&temp, bytes + 16), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 32), cudaSuccess);
  auto* aligned_out = reinterpret_cast<double*>(out);
  auto* odd_out = reinterpret_cast<double*>(out + 4);
  EXPECT_EQ(reduce(temp, bytes, in.get(), odd_out, data.size(), plus{}, 0.0), cudaErrorMisalignedAddress);
  EXPECT_EQ(reduce(temp + 4, bytes, in.get(), aligned_out, data.size(), plus{}, 0.0), cudaErrorMisalignedAddress);
  EXPECT_EQ(reduce(temp, bytes, in.get(), aligned_out, data.size(), plus{}, 0.0), cudaSuccess);
  double got = 0;
  ASSERT_EQ(cudaMemcpy(&got, aligned_out, sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, expected) << "seed " << seed;
  cudaFree(temp);
  cudaFree(out);
}

}  // namespace
