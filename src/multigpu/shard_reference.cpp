#include "multigpu/shard_reference.hpp"

#include "multigpu/shard_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

namespace warpfold::multigpu {
namespace {

template <class T>
ShardReference reference_of_range(uint64_t seed_of_shard, int rank, uint64_t begin, uint64_t end) {
  ShardReference r;
  r.count = end - begin;
  r.max_value = -std::numeric_limits<double>::infinity();
  for (uint64_t i = begin; i < end; ++i) {
    const T x = shard_value<T>(seed_of_shard, rank, i);
    if constexpr (std::is_integral_v<T>) {
      r.int_sum += x;
    } else {
      r.real_sum += x;
      r.abs_sum += std::fabs(x);
    }
    r.max_value = std::max(r.max_value, double(x));
  }
  if constexpr (std::is_integral_v<T>) {
    r.real_sum = r.abs_sum = 0;
  }
  return r;
}

template <class T>
ShardReference reference_on_all_cores(uint64_t count, uint64_t seed, int rank) {
  const uint64_t s = shard_seed(seed, rank);
  const uint64_t min_chunk = uint64_t(1) << 20;  // below this a thread costs more than it saves
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t threads = std::max<uint64_t>(1, std::min<uint64_t>({cores, 64, count / min_chunk}));
  std::vector<ShardReference> parts(threads);
  std::vector<std::thread> workers;
  for (uint64_t t = 0; t < threads; ++t) {
    const uint64_t begin = count * t / threads, end = count * (t + 1) / threads;
    workers.emplace_back([&parts, t, s, rank, begin, end] { parts[t] = reference_of_range<T>(s, rank, begin, end); });
  }
  for (auto& w : workers) w.join();
  ShardReference total = parts[0];
  for (uint64_t t = 1; t < threads; ++t) total = combine(total, parts[t]);
  return total;
}

}  // namespace

ShardReference reference_of_shard(ElementType type, uint64_t count, uint64_t seed, int rank) {
  switch (type) {
    case ElementType::int32: return reference_on_all_cores<int32_t>(count, seed, rank);
    case ElementType::float32: return reference_on_all_cores<float>(count, seed, rank);
    case ElementType::float64: return reference_on_all_cores<double>(count, seed, rank);
    case ElementType::int8:
    case ElementType::float16: break;  // not offered by `warpfold multigpu`
  }
  return {};
}

ShardReference combine(const ShardReference& a, const ShardReference& b) {
  ShardReference r;
  r.count = a.count + b.count;
  r.int_sum = a.int_sum + b.int_sum;
  r.real_sum = a.real_sum + b.real_sum;
  r.abs_sum = a.abs_sum + b.abs_sum;
  r.max_value = std::max(a.max_value, b.max_value);
  return r;
}

}  // namespace warpfold::multigpu
