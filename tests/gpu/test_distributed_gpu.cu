// warpfold::distributed on every GPU of this machine (one on a one-GPU machine): both set-ups'
// entry points against CPU references, the result on every GPU, init counted once, empty
// shards, and the `warpfold multigpu` single set-up end to end.
#include "gpu/reduce_test_support.cuh"

#include "harness/device_buffer.hpp"
#include "multigpu/multigpu_run.hpp"
#include "multigpu/run_common.hpp"

#include <warpfold/distributed.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

using namespace warpfold;
using namespace warpfold::testing;

namespace {

int gpu_count() {
  int n = 0;
  EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  return n;
}

std::vector<int> all_devices() {
  std::vector<int> d(static_cast<size_t>(gpu_count()));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

// Every GPU's shard of `data` (shard_of), its result slot, temp storage and stream.
template <class T, class Acc, class Op>
struct ShardedInput {
  std::vector<harness::DeviceBuffer<T>> data;
  std::vector<harness::DeviceBuffer<Acc>> result;
  std::vector<harness::DeviceBuffer<char>> temp;
  std::vector<std::unique_ptr<multigpu::OwnedStream>> streams;
  std::vector<distributed::local_shard<T, Acc>> shards;

  ShardedInput(const std::vector<T>& values, const distributed::communicators& comms) {
    const int gpus = int(comms.size());
    for (int d = 0; d < gpus; ++d) {
      const auto extent = distributed::shard_of(values.size(), gpus, d);
      EXPECT_EQ(cudaSetDevice(d), cudaSuccess);
      streams.push_back(std::make_unique<multigpu::OwnedStream>());
      const cudaStream_t stream = streams.back()->get();
      // On the shard's own stream: a pageable cudaMemcpy may return before its DMA lands, and
      // the reduce runs on a non-blocking stream that would not wait for it.
      data.emplace_back(extent.count);
      if (extent.count) {
        EXPECT_EQ(cudaMemcpyAsync(data.back().get(), values.data() + extent.begin, extent.count * sizeof(T),
                                  cudaMemcpyHostToDevice, stream),
                  cudaSuccess);
      }
      result.emplace_back(1);
      EXPECT_EQ(cudaMemsetAsync(result.back().get(), 0xff, sizeof(Acc), stream), cudaSuccess);  // poison
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);  // `values` may go before the copy is read
      temp.emplace_back(distributed::temp_bytes_for<T, Acc, Op>(d));
      shards.push_back({d, data.back().get(), extent.count, result.back().get(), temp.back().get(), temp.back().size(),
                        comms[size_t(d)], stream});
    }
  }

  Acc read(int d) {
    Acc v{};
    const cudaStream_t stream = shards[size_t(d)].stream;
    EXPECT_EQ(cudaMemcpyAsync(&v, result[size_t(d)].get(), sizeof(Acc), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return v;
  }
};

// allreduce_local over every GPU: each GPU's result against the CPU's fold of init and all data.
// `tolerance_u`: 0 for an exact result, else the unit roundoff of a floating-point sum.
template <class T, class Acc, class Op, class Ref>
void check_allreduce_local(const distributed::communicators& comms, uint64_t n, Op op, Acc init, Ref ref, double lo,
                           double hi, double tolerance_u) {
  const uint64_t seed = new_seed();
  const auto values = random_values<T>(n, seed, lo, hi);
  long double expected = to_double(init), abs_sum = std::fabs(to_double(init));
  for (const T& x : values) {
    expected = ref(expected, (long double)to_double(x));
    abs_sum += std::fabs(to_double(x));
  }
  ShardedInput<T, Acc, Op> in(values, comms);
  distributed::allreduce_local(in.shards, op, init);
  const long double bound = tolerance_u * (n / 256 + 25 + comms.size()) * abs_sum;
  for (int d = 0; d < int(comms.size()); ++d) {
    const long double got = to_double(in.read(d));
    EXPECT_LE(std::fabs(got - expected), bound) << "GPU " << d << " of " << comms.size() << ", n " << n << ", seed "
                                               << seed << ": expected " << double(expected) << " got " << double(got);
  }
}

const auto add = [](long double a, long double b) { return a + b; };
const auto larger = [](long double a, long double b) { return std::max(a, b); };
const auto smaller = [](long double a, long double b) { return std::min(a, b); };

}  // namespace

TEST(DistributedGpu, AllreduceLocalMatchesTheCpuOnEveryGpu) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const uint64_t gpus = comms.size();
  // Fewer elements than GPUs (empty shards), awkward sizes, and one past a million.
  for (uint64_t n : {uint64_t(0), uint64_t(1), gpus + 1, uint64_t(4097), (uint64_t(1) << 20) + 7}) {
    SCOPED_TRACE("n " + std::to_string(n));
    check_allreduce_local<int32_t, int64_t>(comms, n, plus{}, int64_t(7), add, -1e6, 1e6, 0);
    check_allreduce_local<uint8_t, uint64_t>(comms, n, plus{}, uint64_t(0), add, 0, 255, 0);
    check_allreduce_local<int64_t, int64_t>(comms, n, minimum{}, int64_t(1) << 40, smaller, -1e15, 1e15, 0);
    check_allreduce_local<float, float>(comms, n, maximum{}, -1e30f, larger, -1e6, 1e6, 0);
    check_allreduce_local<double, double>(comms, n, plus{}, 0.5, add, -1, 1, 0x1.0p-53);
    check_allreduce_local<float, float>(comms, n, plus{}, 0.0f, add, 0, 1, 0x1.0p-24);
    check_allreduce_local<__nv_bfloat16, float>(comms, n, plus{}, 0.0f, add, -2, 2, 0x1.0p-24);
  }
}

TEST(DistributedGpu, InitCountsOnceWhateverTheNumberOfGpus) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const std::vector<int32_t> ones(1000, 1);
  ShardedInput<int32_t, int64_t, plus> in(ones, comms);
  distributed::allreduce_local(in.shards, plus{}, int64_t(100));
  for (int d = 0; d < int(comms.size()); ++d) EXPECT_EQ(in.read(d), 1100) << "GPU " << d;
  ShardedInput<int32_t, int64_t, multiplies> twos(std::vector<int32_t>(40, 2), comms);
  distributed::allreduce_local(twos.shards, multiplies{}, int64_t(3));
  for (int d = 0; d < int(comms.size()); ++d) EXPECT_EQ(twos.read(d), int64_t(3) << 40) << "GPU " << d;
}

TEST(DistributedGpu, ReduceToRootLeavesTheOthersUntouched) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const int root = int(comms.size()) - 1;
  const auto values = random_values<int32_t>(100003, new_seed(), -1000, 1000);
  const int64_t expected = std::accumulate(values.begin(), values.end(), int64_t(0));
  ShardedInput<int32_t, int64_t, plus> in(values, comms);
  distributed::reduce_to_root_local(in.shards, plus{}, int64_t(0), root);
  for (int d = 0; d < int(comms.size()); ++d) {
    if (d == root) EXPECT_EQ(in.read(d), expected);
    else EXPECT_EQ(in.read(d), int64_t(-1)) << "GPU " << d << " was written (it still held the poison before)";
  }
}

// The one-rank-per-process entry points (what each mpirun process calls), with one thread per
// GPU standing in for the processes: new_unique_id, init_rank, allreduce and reduce_to_root.
TEST(DistributedGpu, OneRankPerThreadAsUnderMpirun) {
  WARPFOLD_REQUIRE_GPU();
  const int gpus = gpu_count();
  const uint64_t n = (uint64_t(1) << 18) + 5;
  const auto values = random_values<double>(n, new_seed(), -1, 1);
  long double expected = 2.0, abs_sum = 2.0;  // init 2
  for (double x : values) {
    expected += x;
    abs_sum += std::fabs(x);
  }
  const ncclUniqueId id = distributed::new_unique_id();
  std::vector<double> all_result(static_cast<size_t>(gpus), NAN), root_result(static_cast<size_t>(gpus), NAN);
  std::vector<std::string> errors(static_cast<size_t>(gpus));
  std::vector<std::thread> ranks;
  for (int r = 0; r < gpus; ++r) {
    ranks.emplace_back([&, r] {
      try {
        const auto comm = distributed::communicators::init_rank(gpus, id, r, r);
        const auto extent = distributed::shard_of(n, gpus, r);
        harness::DeviceBuffer<double> shard(extent.count), out(2);
        multigpu::OwnedStream stream;
        WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(shard.get(), values.data() + extent.begin, extent.count * sizeof(double),
                                            cudaMemcpyHostToDevice, stream.get()));
        size_t bytes = 0;
        distributed::allreduce(nullptr, bytes, shard.get(), out.get(), extent.count, plus{}, 2.0, comm[0], stream.get());
        harness::DeviceBuffer<char> temp(bytes);
        distributed::allreduce(temp.get(), bytes, shard.get(), out.get(), extent.count, plus{}, 2.0, comm[0], stream.get());
        distributed::reduce_to_root(temp.get(), bytes, shard.get(), out.get() + 1, extent.count, plus{}, 2.0, 0, comm[0],
                                    stream.get());
        double host[2];
        WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host, out.get(), sizeof host, cudaMemcpyDeviceToHost, stream.get()));
        WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        all_result[size_t(r)] = host[0];
        root_result[size_t(r)] = host[1];
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  const long double bound = (n / 256 + 25 + gpus) * 0x1.0p-53 * abs_sum;
  for (int r = 0; r < gpus; ++r) {
    ASSERT_EQ(errors[size_t(r)], "") << "rank " << r;
    EXPECT_LE(std::fabs(all_result[size_t(r)] - expected), bound) << "rank " << r;
  }
  EXPECT_LE(std::fabs(root_result[0] - expected), bound);
}

TEST(DistributedGpu, TooLittleTempStorageIsAnError) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all({0});
  WARPFOLD_CUDA_CHECK(cudaSetDevice(0));
  harness::DeviceBuffer<float> data(1000), out(1);
  size_t bytes = 0;
  distributed::allreduce(nullptr, bytes, data.get(), out.get(), 1000, plus{}, 0.0f, comms[0]);
  harness::DeviceBuffer<char> temp(bytes);
  size_t too_few = bytes - 1;
  EXPECT_THROW(distributed::allreduce(temp.get(), too_few, data.get(), out.get(), 1000, plus{}, 0.0f, comms[0]), cuda_error);
}

// `warpfold multigpu`, single set-up, on one GPU and on every GPU: every check passes, NVLink
// multicast is off, asking for a GPU too many is a usage error.
TEST(MultigpuRunGpu, SingleSetUpChecksOutOnOneAndOnEveryGpu) {
  WARPFOLD_REQUIRE_GPU();
  std::vector<int> counts{1};
  if (gpu_count() > 1) counts.push_back(gpu_count());
  for (int gpus : counts) {
    for (auto type : {multigpu::ElementType::int32, multigpu::ElementType::float32, multigpu::ElementType::float64}) {
      for (auto op : {multigpu::ReduceOp::sum, multigpu::ReduceOp::max}) {
        multigpu::MultigpuOptions o;
        o.gpus = gpus;
        o.n_per_gpu = (uint64_t(1) << 20) + 3;
        o.type = type;
        o.op = op;
        o.reps = 3;
        o.warmup = 1;
        const auto out = multigpu::run_multigpu(o);
        const std::string what = std::to_string(gpus) + " GPU(s), " + bench::to_string(type) + " " + bench::to_string(op);
        ASSERT_EQ(out.stop, multigpu::Stop::none) << what << ": " << out.message;
        EXPECT_FALSE(out.check_failed) << what << "\n" << report::render(out.report, report::Format::table);
        ASSERT_EQ(out.report.tables.size(), 2u) << what;
        EXPECT_EQ(out.report.tables[0].rows.size(), size_t(gpus)) << what;
        EXPECT_EQ(out.report.tables[1].rows[0].back(), "ok") << what;
        EXPECT_GT(out.report.tables[1].rows[0][9].get<double>(), 0) << what << ": aggregate GB/s";
      }
    }
  }
  // Set by the run where the environment had no value; kept where it had 0 (the GPU machines').
  EXPECT_NE(distributed::keep_nvlink_multicast_off(), distributed::nvls_setting::set_off_here);
  multigpu::MultigpuOptions too_many;
  too_many.gpus = gpu_count() + 1;
  too_many.n_per_gpu = 1024;
  EXPECT_THROW(multigpu::run_multigpu(too_many), std::invalid_argument);
}
