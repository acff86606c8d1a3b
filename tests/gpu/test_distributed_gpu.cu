// warpfold::distributed on every GPU of this machine (one on a one-GPU machine): both set-ups'
// entry points against CPU references, the result on every GPU, init counted once, empty
// shards; the answer of warpfold::reduce on one GPU where NCCL's arithmetic differs from
// warpfold's (a NaN in one GPU's shard of a floating-point min or max), infinities and NaN through
// NCCL's own sums; reproducible sums with the bits of one GPU whatever the split; the phases by
// hand; and the `warpfold multigpu` single set-up end to end. On one GPU every shard is the whole
// data, so the NaN and split tests tell the combines apart only on two GPUs or more.
#include "gpu/reduce_test_support.cuh"

#include "harness/device_buffer.hpp"
#include "multigpu/multigpu_run.hpp"
#include "multigpu/run_common.hpp"
#include "reference/reproducible_support.hpp"

#include <warpfold/distributed.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <thread>
#include <type_traits>
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

using split = std::vector<distributed::shard_extent>;

split even_split(uint64_t n, int parts) {
  split s;
  for (int i = 0; i < parts; ++i) s.push_back(distributed::shard_of(n, parts, i));
  return s;
}

// The splits the reproducible tests try: even, random, everything on the last GPU (the others
// empty), one element on the first GPU and the rest even over the others.
std::vector<split> splits_to_try(uint64_t n, int parts, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<split> all{even_split(n, parts), random_split(n, parts, gen)};
  if (parts < 2) return all;
  split last(size_t(parts), distributed::shard_extent{0, 0});
  last.back() = {0, n};
  all.push_back(last);
  if (n > 1) {
    split first{{0, 1}};
    for (int i = 0; i + 1 < parts; ++i) {
      const auto e = distributed::shard_of(n - 1, parts - 1, i);
      first.push_back({e.begin + 1, e.count});
    }
    all.push_back(first);
  }
  return all;
}

std::string describe(const split& s) {
  std::string text;
  for (const auto& e : s) text += (text.empty() ? "" : " + ") + std::to_string(e.count);
  return text;
}

// The result slots start with this byte everywhere: finite in every floating type (a NaN poison
// would pass for a NaN result that was never written).
constexpr int kPoison = 0x5a;

// What ShardedInput takes for a reproducible sum in place of an operator.
struct reproducible_tag {};

template <class T, class Acc, class Op>
size_t temp_bytes_of(ncclComm_t comm) {
  if constexpr (std::is_same_v<Op, reproducible_tag>) return distributed::reproducible_sum_temp_bytes_for<T>(comm);
  else return distributed::temp_bytes_for<T, Acc, Op>(comm);
}

// Every GPU's shard of `data` (shard_of, or the split given), its result slot, temp storage and
// stream. The communicators are those of devices 0, 1, ... in order.
template <class T, class Acc, class Op>
struct ShardedInput {
  std::vector<harness::DeviceBuffer<T>> data;
  std::vector<harness::DeviceBuffer<Acc>> result;
  std::vector<harness::DeviceBuffer<char>> temp;
  std::vector<std::unique_ptr<multigpu::OwnedStream>> streams;
  std::vector<distributed::local_shard<T, Acc>> shards;

  ShardedInput(const std::vector<T>& values, const distributed::communicators& comms, split extents = {}) {
    const int gpus = int(comms.size());
    if (extents.empty()) extents = even_split(values.size(), gpus);
    for (int d = 0; d < gpus; ++d) {
      const auto extent = extents[size_t(d)];
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
      EXPECT_EQ(cudaMemsetAsync(result.back().get(), kPoison, sizeof(Acc), stream), cudaSuccess);
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);  // `values` may go before the copy is read
      temp.push_back(harness::fresh_temp_storage(temp_bytes_of<T, Acc, Op>(comms[size_t(d)]), stream));
      shards.push_back({d, data.back().get(), extent.count, result.back().get(), temp.back().get(), temp.back().size(),
                        comms[size_t(d)], stream});
    }
  }

  Acc read(int d) {
    Acc v{};
    const cudaStream_t stream = shards[size_t(d)].stream;
    EXPECT_EQ(cudaSetDevice(d), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(&v, result[size_t(d)].get(), sizeof(Acc), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return v;
  }

  // Whether GPU d's result slot still holds the poison.
  bool untouched(int d) {
    const Acc v = read(d);
    unsigned char poison[sizeof(Acc)];
    std::memset(poison, kPoison, sizeof(Acc));
    return std::memcmp(&v, poison, sizeof(Acc)) == 0;
  }
};

template <class T>
harness::DeviceBuffer<T> upload(const std::vector<T>& values) {
  harness::DeviceBuffer<T> d(values.size());
  if (!values.empty()) {
    EXPECT_EQ(cudaMemcpy(d.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  return d;
}

// warpfold::reduce over all the data on GPU 0: the answer every distributed result must give.
template <class T, class Acc, class Op>
Acc on_one_gpu(const std::vector<T>& values, Op op, Acc init) {
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  const auto data = upload(values);
  return run_two_phase<Acc>(
      [&](void* t, size_t& b, Acc* o) { return warpfold::reduce(t, b, data.get(), o, values.size(), op, init); });
}

template <class T>
reproducible_sum_t<T> reproducible_on_one_gpu(const std::vector<T>& values) {
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  const auto data = upload(values);
  return run_two_phase<reproducible_sum_t<T>>([&](void* t, size_t& b, reproducible_sum_t<T>* o) {
    return warpfold::reproducible_sum(t, b, data.get(), o, values.size());
  });
}

// The same answer as a reduce's: both NaN (which NaN is not promised), or equal (infinities too).
template <class Acc>
bool same_answer(const Acc& got, const Acc& expected) {
  const double a = to_double(got), b = to_double(expected);
  return std::isnan(b) ? std::isnan(a) : a == b;
}

template <class T>
bool is_nan(const T& x) {
  return std::isnan(to_double(x));
}

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

// Runs `body(rank, comm, stream)` on one thread per GPU, each rank with its own communicator
// from init_rank, as one process per GPU under mpirun would. Returns each rank's error ("" none).
template <class Body>
std::vector<std::string> on_one_thread_per_rank(int gpus, Body body) {
  const ncclUniqueId id = distributed::new_unique_id();
  std::vector<std::string> errors(static_cast<size_t>(gpus));
  std::vector<std::thread> ranks;
  for (int r = 0; r < gpus; ++r) {
    ranks.emplace_back([&, r] {
      try {
        const auto comm = distributed::communicators::init_rank(gpus, id, r, r);
        multigpu::OwnedStream stream;
        body(r, comm[0], stream.get());
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  return errors;
}

// This rank's shard of `values`, on the current device, copied on `stream`.
template <class T>
harness::DeviceBuffer<T> upload_shard(const std::vector<T>& values, distributed::shard_extent e, cudaStream_t stream) {
  harness::DeviceBuffer<T> shard(e.count);
  if (e.count) {
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(shard.get(), values.data() + e.begin, e.count * sizeof(T),
                                        cudaMemcpyHostToDevice, stream));
  }
  return shard;
}

template <class Out>
std::vector<Out> download(const Out* d_values, size_t count, cudaStream_t stream) {
  std::vector<Out> host(count);
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), d_values, count * sizeof(Out), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

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
    check_allreduce_local<double, double>(comms, n, minimum{}, 1e300, smaller, -1e6, 1e6, 0);
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
  // The gathered path folds init in too: below every element, it is the minimum on every GPU.
  ShardedInput<float, float, minimum> small(random_values<float>(1000, new_seed(), 1, 2), comms);
  distributed::allreduce_local(small.shards, minimum{}, 0.25f);
  for (int d = 0; d < int(comms.size()); ++d) EXPECT_EQ(small.read(d), 0.25f) << "GPU " << d;
}

TEST(DistributedGpu, ReduceToRootLeavesTheOthersUntouched) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const int root = int(comms.size()) - 1;
  const auto values = random_values<int32_t>(100003, new_seed(), -1000, 1000);
  const int64_t expected = std::accumulate(values.begin(), values.end(), int64_t(0));
  ShardedInput<int32_t, int64_t, plus> in(values, comms);
  distributed::reduce_to_root_local(in.shards, plus{}, int64_t(0), root);
  const auto floats = random_values<float>(100003, new_seed(), -1000, 1000);
  ShardedInput<float, float, maximum> gathered(floats, comms);
  distributed::reduce_to_root_local(gathered.shards, maximum{}, -1e30f, root);
  for (int d = 0; d < int(comms.size()); ++d) {
    if (d == root) {
      EXPECT_EQ(in.read(d), expected);
      EXPECT_EQ(gathered.read(d), *std::max_element(floats.begin(), floats.end()));
    } else {
      EXPECT_TRUE(in.untouched(d)) << "GPU " << d << " was written";
      EXPECT_TRUE(gathered.untouched(d)) << "GPU " << d << " was written (gathered path)";
    }
  }
}

// --- the same answer on one GPU and on many ----------------------------------------------------

// A NaN at the first, a middle and the last element of each GPU's shard in turn, random numbers
// elsewhere: every GPU's result is NaN, as warpfold::reduce's on one GPU. NCCL's fmin / fmax would
// let the other GPUs' numbers win: this fails on two GPUs for a combine by ncclMin / ncclMax.
template <class T, class Op>
void check_nan_in_each_shard(const distributed::communicators& comms, Op op) {
  const int gpus = int(comms.size());
  const uint64_t n = 4097 * uint64_t(gpus) + 3;
  const T init = from_double<T>(0.5), nan = from_double<T>(std::numeric_limits<double>::quiet_NaN());
  for (int s = 0; s < gpus; ++s) {
    const auto e = distributed::shard_of(n, gpus, s);
    for (uint64_t at : {e.begin, e.begin + e.count / 2, e.begin + e.count - 1}) {
      const uint64_t seed = new_seed();
      auto values = random_values<T>(n, seed, -1000, 1000);
      values[at] = nan;
      const std::string what = "NaN at " + std::to_string(at) + " (GPU " + std::to_string(s) + "'s shard), seed " +
                               std::to_string(seed);
      ASSERT_TRUE(is_nan(on_one_gpu(values, op, init))) << what << ": warpfold::reduce on one GPU";
      ShardedInput<T, T, Op> every(values, comms);
      distributed::allreduce_local(every.shards, op, init);
      const int root = (s + 1) % gpus;
      ShardedInput<T, T, Op> one(values, comms);
      distributed::reduce_to_root_local(one.shards, op, init, root);
      for (int d = 0; d < gpus; ++d) {
        EXPECT_TRUE(is_nan(every.read(d))) << what << ": allreduce on GPU " << d << ": " << to_double(every.read(d));
        if (d == root) EXPECT_TRUE(is_nan(one.read(d))) << what << ": reduce_to_root on GPU " << d;
        else EXPECT_TRUE(one.untouched(d)) << what << ": reduce_to_root wrote GPU " << d;
      }
    }
  }
}

TEST(DistributedGpu, NaNInOneGpusShardOfAFloatingMinOrMaxGivesNaNAsOnOneGpu) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  check_nan_in_each_shard<float>(comms, minimum{});
  check_nan_in_each_shard<float>(comms, maximum{});
  check_nan_in_each_shard<double>(comms, minimum{});
  check_nan_in_each_shard<double>(comms, maximum{});
  check_nan_in_each_shard<__half>(comms, minimum{});
  check_nan_in_each_shard<__nv_bfloat16>(comms, maximum{});
}

// Special values placed in given GPUs' shards (index: the shard's first element + offset) over
// random numbers; GPUs past the machine's count are left out.
struct placed_value {
  int gpu;
  double value;
};

template <class T, class Op>
void check_like_one_gpu(const distributed::communicators& comms, Op op, double init,
                        const std::vector<placed_value>& placed, const std::string& what) {
  const int gpus = int(comms.size());
  const uint64_t n = 1000 * uint64_t(gpus) + 1, seed = new_seed();
  auto values = random_values<T>(n, seed, -1000, 1000);
  for (size_t k = 0; k < placed.size(); ++k) {
    const int gpu = placed[k].gpu < 0 ? gpus - 1 : placed[k].gpu;  // -1: the last GPU
    if (gpu < gpus) values[distributed::shard_of(n, gpus, gpu).begin + 7 * k] = from_double<T>(placed[k].value);
  }
  const T expected = on_one_gpu(values, op, from_double<T>(init));
  ShardedInput<T, T, Op> in(values, comms);
  distributed::allreduce_local(in.shards, op, from_double<T>(init));
  for (int d = 0; d < gpus; ++d) {
    EXPECT_TRUE(same_answer(in.read(d), expected))
        << what << ", seed " << seed << ": GPU " << d << " gave " << to_double(in.read(d)) << ", one GPU "
        << to_double(expected);
  }
}

// Infinities and NaN: through the gathered min and max, and through NCCL's own sum, which
// agrees (IEEE: +inf + -inf is NaN on one GPU and on many).
template <class T>
void check_special_values_like_one_gpu(const distributed::communicators& comms) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  check_like_one_gpu<T>(comms, maximum{}, -inf, {{-1, inf}}, "max, +inf on the last GPU");
  check_like_one_gpu<T>(comms, minimum{}, inf, {{-1, -inf}}, "min, -inf on the last GPU");
  check_like_one_gpu<T>(comms, minimum{}, inf, {{0, -inf}, {-1, nan}}, "min, -inf on the first GPU, NaN on the last");
  check_like_one_gpu<T>(comms, maximum{}, 0.5, {{0, nan}, {-1, inf}}, "max, NaN on the first GPU, +inf on the last");
  check_like_one_gpu<T>(comms, plus{}, 0.0, {{0, inf}, {-1, -inf}}, "sum, +inf on the first GPU, -inf on the last");
  check_like_one_gpu<T>(comms, plus{}, 0.0, {{-1, inf}, {-1, inf}}, "sum, +inf twice on the last GPU");
  check_like_one_gpu<T>(comms, plus{}, 0.0, {{-1, nan}}, "sum, NaN on the last GPU");
  check_like_one_gpu<T>(comms, multiplies{}, 1.0, {{0, 0.0}, {-1, inf}}, "product, 0 first, +inf on the last GPU");
}

TEST(DistributedGpu, InfinitiesAndNaNGiveWhatOneGpuGives) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  check_special_values_like_one_gpu<float>(comms);
  check_special_values_like_one_gpu<double>(comms);
}

// --- reproducible sums -------------------------------------------------------------------------

// The data of one case through one GPU's communicator and through every GPU's, each way split:
// every result, on every GPU, has the bits of warpfold::reproducible_sum on one GPU, which are
// ReproBLAS's (the CPU port). A combine of rounded per-GPU sums gives other bits for most splits.
template <class T>
void check_reproducible_splits(const distributed::communicators& every, const distributed::communicators& one,
                               const std::vector<T>& values, const std::string& what) {
  using F = reproducible_sum_t<T>;
  const int gpus = int(every.size());
  // One GPU's bits are the port's; a NaN is the canonical one (the port keeps whichever NaN it met).
  const F expected = reproducible_on_one_gpu(values), port = reference_sum(values);
  ASSERT_TRUE(same_bits(expected, std::isnan(port) ? detail::binned_canonical_nan<F>() : port))
      << what << ": warpfold::reproducible_sum on one GPU " << bits_of(expected) << ", the port " << bits_of(port);
  ShardedInput<T, F, reproducible_tag> alone(values, one);
  distributed::reproducible_sum_local(alone.shards);
  EXPECT_TRUE(same_bits(alone.read(0), expected)) << what << ", one GPU: " << bits_of(alone.read(0)) << ", expected "
                                                  << bits_of(expected);
  for (const split& s : splits_to_try(values.size(), gpus, new_seed())) {
    ShardedInput<T, F, reproducible_tag> all(values, every, s);
    distributed::reproducible_sum_local(all.shards);
    ShardedInput<T, F, reproducible_tag> to_root(values, every, s);
    distributed::reproducible_sum_to_root_local(to_root.shards, 0);
    for (int d = 0; d < gpus; ++d) {
      EXPECT_TRUE(same_bits(all.read(d), expected)) << what << ", split " << describe(s) << ", GPU " << d << ": "
                                                    << bits_of(all.read(d)) << ", expected " << bits_of(expected);
      if (d == 0) EXPECT_TRUE(same_bits(to_root.read(d), expected)) << what << ", split " << describe(s) << ", root";
      else EXPECT_TRUE(to_root.untouched(d)) << what << ", split " << describe(s) << ": GPU " << d << " was written";
    }
  }
}

template <class T>
void check_reproducible_data(const distributed::communicators& every, const distributed::communicators& one) {
  const std::vector<uint64_t> sizes{0, 1, 2, 1000, 4097, 100003, (uint64_t(1) << 20) + 7};
  const auto& kinds = every_sum_data();
  const size_t cases = representative_run() ? sizes.size() : sizes.size() * 2;  // each size twice, or once
  for (size_t k = 0; k < cases; ++k) {
    const uint64_t n = sizes[k % sizes.size()], seed = new_seed();
    const sum_data kind = kinds[k % kinds.size()];
    check_reproducible_splits(every, one, make_sum_data<T>(kind, n, seed),
                              name_of(kind) + " data, n " + std::to_string(n) + ", seed " + std::to_string(seed));
  }
}

TEST(DistributedGpu, ReproducibleSumHasTheBitsOfOneGpuWhateverTheSplit) {
  WARPFOLD_REQUIRE_GPU();
  const auto every = distributed::communicators::init_all(all_devices());
  const auto one = distributed::communicators::init_all({0});
  check_reproducible_data<float>(every, one);
  check_reproducible_data<double>(every, one);
  check_reproducible_data<__half>(every, one);
}

// NaN and infinities in different GPUs' shards: the canonical NaN, or the infinity, as one GPU.
TEST(DistributedGpu, ReproducibleSumOfNaNAndInfinitiesOverGpus) {
  WARPFOLD_REQUIRE_GPU();
  const auto every = distributed::communicators::init_all(all_devices());
  const auto one = distributed::communicators::init_all({0});
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  struct special_case {
    const char* what;
    double first, middle, last;  // placed over random numbers in [-1, 1]
  };
  for (const special_case& c : {special_case{"+inf first, -inf last", inf, 0.25, -inf},
                                special_case{"+inf first", inf, 0.25, 1.0}, special_case{"-inf last", 0.25, 0.25, -inf},
                                special_case{"a negative NaN first", -nan, 0.25, 1.0},
                                special_case{"the largest doubles overflowing", 1e308, 1e308, 0.25}}) {
    auto values = random_values<double>(10007, new_seed(), -1, 1);
    values.front() = c.first;
    values[values.size() / 2] = c.middle;
    values.back() = c.last;
    check_reproducible_splits(every, one, values, c.what);
  }
}

TEST(DistributedGpu, AFloatReproducibleSumPastTheCapacityIsRefused) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const int gpus = int(comms.size());
  // Every shard within the capacity, all of them past it: nothing is read, the check comes first.
  const uint64_t each = detail::binned_params<float>::capacity / uint64_t(gpus) + 1;
  std::vector<harness::DeviceBuffer<float>> data, result;
  std::vector<harness::DeviceBuffer<char>> temp;
  std::vector<distributed::local_shard<float, float>> shards;
  for (int d = 0; d < gpus; ++d) {
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    data.emplace_back(1);
    result.emplace_back(1);
    temp.emplace_back(distributed::reproducible_sum_temp_bytes_for<float>(comms[size_t(d)]));
    shards.push_back({d, data.back().get(), each, result.back().get(), temp.back().get(), temp.back().size(),
                      comms[size_t(d)], 0});
  }
  try {
    distributed::reproducible_sum_local(shards);
    ADD_FAILURE() << "a float sum of " << each * uint64_t(gpus) << " elements ran";
  } catch (const cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("ReproBLAS's capacity"), std::string::npos) << e.what();
  }
}

// --- one rank per process, the phases ----------------------------------------------------------

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
  std::vector<double> all_result(static_cast<size_t>(gpus), NAN), root_result(static_cast<size_t>(gpus), NAN);
  const auto errors = on_one_thread_per_rank(gpus, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const auto extent = distributed::shard_of(n, gpus, r);
    const auto shard = upload_shard(values, extent, stream);
    harness::DeviceBuffer<double> out(2);
    size_t bytes = 0;
    distributed::allreduce(nullptr, bytes, shard.get(), out.get(), extent.count, plus{}, 2.0, comm, stream);
    const auto temp = harness::fresh_temp_storage(bytes, stream);
    distributed::allreduce(temp.get(), bytes, shard.get(), out.get(), extent.count, plus{}, 2.0, comm, stream);
    distributed::reduce_to_root(temp.get(), bytes, shard.get(), out.get() + 1, extent.count, plus{}, 2.0, 0, comm,
                                stream);
    const auto host = download(out.get(), 2, stream);
    all_result[size_t(r)] = host[0];
    root_result[size_t(r)] = host[1];
  });
  const long double bound = (n / 256 + 25 + gpus) * 0x1.0p-53 * abs_sum;
  for (int r = 0; r < gpus; ++r) {
    ASSERT_EQ(errors[size_t(r)], "") << "rank " << r;
    EXPECT_LE(std::fabs(all_result[size_t(r)] - expected), bound) << "rank " << r;
  }
  EXPECT_LE(std::fabs(root_result[0] - expected), bound);
}

// The same entry points on the gathered path and for reproducible sums: a float max with a NaN
// in the last rank's shard alone is NaN on every rank; a reproducible sum split unevenly has
// ReproBLAS's bits on every rank.
TEST(DistributedGpu, OneRankPerThreadGathersNaNAndMergesBinnedSums) {
  WARPFOLD_REQUIRE_GPU();
  const int gpus = gpu_count();
  const uint64_t n = (uint64_t(1) << 18) + 5, seed = new_seed();
  auto floats = random_values<float>(n, seed, -1e6, 1e6);
  floats.back() = NAN;
  const auto doubles = make_sum_data<double>(sum_data::cancelling, n, seed);
  const double expected_sum = reference_sum(doubles);
  std::mt19937_64 gen(seed);
  const split uneven = random_split(n, gpus, gen);
  std::vector<std::vector<float>> maxima(static_cast<size_t>(gpus));
  std::vector<std::vector<double>> sums(static_cast<size_t>(gpus));
  const auto errors = on_one_thread_per_rank(gpus, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const auto extent = distributed::shard_of(n, gpus, r);
    const auto shard = upload_shard(floats, extent, stream);
    harness::DeviceBuffer<float> max_out(2);
    size_t bytes = 0;
    distributed::allreduce(nullptr, bytes, shard.get(), max_out.get(), extent.count, maximum{}, -1e30f, comm, stream);
    const auto temp = harness::fresh_temp_storage(bytes, stream);
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(max_out.get(), kPoison, 2 * sizeof(float), stream));
    distributed::allreduce(temp.get(), bytes, shard.get(), max_out.get(), extent.count, maximum{}, -1e30f, comm,
                           stream);
    distributed::reduce_to_root(temp.get(), bytes, shard.get(), max_out.get() + 1, extent.count, maximum{}, -1e30f,
                                gpus - 1, comm, stream);
    maxima[size_t(r)] = download(max_out.get(), 2, stream);

    const auto part = upload_shard(doubles, uneven[size_t(r)], stream);
    harness::DeviceBuffer<double> sum_out(2);
    distributed::reproducible_sum(nullptr, bytes, part.get(), sum_out.get(), part.size(), comm, stream);
    const auto sum_temp = harness::fresh_temp_storage(bytes, stream);
    distributed::reproducible_sum(sum_temp.get(), bytes, part.get(), sum_out.get(), part.size(), comm, stream);
    distributed::reproducible_sum_to_root(sum_temp.get(), bytes, part.get(), sum_out.get() + 1, part.size(), 0, comm,
                                          stream);
    sums[size_t(r)] = download(sum_out.get(), 2, stream);
  });
  for (int r = 0; r < gpus; ++r) {
    ASSERT_EQ(errors[size_t(r)], "") << "rank " << r;
    EXPECT_TRUE(std::isnan(maxima[size_t(r)][0])) << "rank " << r << ": allreduce gave " << maxima[size_t(r)][0];
    EXPECT_TRUE(same_bits(sums[size_t(r)][0], expected_sum))
        << "rank " << r << ", split " << describe(uneven) << ": " << bits_of(sums[size_t(r)][0]) << ", expected "
        << bits_of(expected_sum);
  }
  EXPECT_TRUE(std::isnan(maxima[size_t(gpus - 1)][1])) << "reduce_to_root's root";
  EXPECT_TRUE(same_bits(sums[0][1], expected_sum)) << "reproducible_sum_to_root's root";
}

// The phases by hand, as code that times them writes them: reduce_shard, combine_allreduce for
// every GPU in one NCCL group, finish_combine after the group. A double minimum with a NaN in the
// last GPU's shard: the last GPU's partial alone is NaN, every result is NaN.
TEST(DistributedGpu, ThePhasesByHandGatherThenFold) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all(all_devices());
  const int gpus = int(comms.size());
  const uint64_t n = 100003;
  auto values = random_values<double>(n, new_seed(), -1e6, 1e6);
  values.back() = NAN;
  ShardedInput<double, double, minimum> in(values, comms);
  std::vector<harness::DeviceBuffer<double>> partial, gathered;
  std::vector<harness::DeviceBuffer<char>> temp;
  for (int d = 0; d < gpus; ++d) {
    const auto& s = in.shards[size_t(d)];
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    partial.emplace_back(1);
    gathered.emplace_back(distributed::gathered_slots<double, minimum>(gpus));
    size_t bytes = 0;
    ASSERT_EQ(distributed::reduce_shard(nullptr, bytes, s.data, partial.back().get(), s.count, minimum{}, 1e300, d,
                                        s.stream),
              cudaSuccess);
    temp.push_back(harness::fresh_temp_storage(bytes, s.stream));
    ASSERT_EQ(distributed::reduce_shard(temp.back().get(), bytes, s.data, partial.back().get(), s.count, minimum{},
                                        1e300, d, s.stream),
              cudaSuccess);
  }
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  for (int d = 0; d < gpus; ++d) {
    const auto& s = in.shards[size_t(d)];
    EXPECT_EQ(distributed::combine_allreduce(gathered[size_t(d)].get(), partial[size_t(d)].get(), s.result, minimum{},
                                             s.comm, s.stream),
              ncclSuccess);
  }
  ASSERT_EQ(ncclGroupEnd(), ncclSuccess);
  for (int d = 0; d < gpus; ++d) {
    const auto& s = in.shards[size_t(d)];
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    ASSERT_EQ(distributed::finish_combine(gathered[size_t(d)].get(), s.result, minimum{}, gpus, s.stream), cudaSuccess);
  }
  for (int d = 0; d < gpus; ++d) {
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    const double own = download(partial[size_t(d)].get(), 1, in.shards[size_t(d)].stream)[0];
    EXPECT_EQ(std::isnan(own), d == gpus - 1) << "GPU " << d << "'s partial " << own;
    EXPECT_TRUE(std::isnan(in.read(d))) << "GPU " << d << "'s result " << in.read(d);
  }
}

// Runs without a GPU: the arguments are checked before anything is launched.
TEST(DistributedGpu, FinishCombineRefusesBadArgumentsBeforeAnyLaunch) {
  float* const some = reinterpret_cast<float*>(uintptr_t(256));  // never dereferenced
  EXPECT_EQ(distributed::finish_combine(static_cast<const float*>(nullptr), some, maximum{}, 2), cudaErrorInvalidValue);
  EXPECT_EQ(distributed::finish_combine(static_cast<const float*>(some), static_cast<float*>(nullptr), maximum{}, 2),
            cudaErrorInvalidValue);
  EXPECT_EQ(distributed::finish_combine(static_cast<const float*>(some), some, maximum{}, 0), cudaErrorInvalidValue);
  // Where NCCL reduced the partials there is nothing to finish.
  const int64_t* no_partials = nullptr;
  EXPECT_EQ(distributed::finish_combine(no_partials, static_cast<int64_t*>(nullptr), plus{}, 0), cudaSuccess);
}

TEST(DistributedGpu, TooLittleTempStorageIsAnError) {
  WARPFOLD_REQUIRE_GPU();
  const auto comms = distributed::communicators::init_all({0});
  WARPFOLD_CUDA_CHECK(cudaSetDevice(0));
  harness::DeviceBuffer<float> data(1000), out(1);
  for (bool gathered : {false, true}) {
    size_t bytes = 0;
    const auto call = [&](void* temp, size_t& b) {
      if (gathered) distributed::allreduce(temp, b, data.get(), out.get(), 1000, maximum{}, 0.0f, comms[0]);
      else distributed::allreduce(temp, b, data.get(), out.get(), 1000, plus{}, 0.0f, comms[0]);
    };
    call(nullptr, bytes);
    harness::DeviceBuffer<char> temp(bytes);
    size_t too_few = bytes - 1;
    EXPECT_THROW(call(temp.get(), too_few), cuda_error) << (gathered ? "max" : "sum");
  }
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
        ASSERT_EQ(out.stop, harness::Stop::none) << what << ": " << out.stop_reason;
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
