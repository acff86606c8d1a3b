// The arithmetic and checks of `warpfold multigpu`: shard data, CPU references, bandwidth,
// efficiency, error bounds and the report built from gathered per-GPU summaries.
#include "multigpu/multigpu_report.hpp"
#include "multigpu/scaling.hpp"
#include "multigpu/shard_reference.hpp"
#include "multigpu/shard_values.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

using namespace warpfold;
using namespace warpfold::multigpu;

namespace {

harness::TimingStats ms(double median) {
  harness::TimingStats s;
  s.median_ms = s.min_ms = s.max_ms = median;
  s.reps = 5;
  return s;
}

RunFacts facts(int gpus, ElementType type, ReduceOp op, uint64_t n) {
  RunFacts f;
  f.gpus = gpus;
  f.options.n_per_gpu = n;
  f.options.type = type;
  f.options.op = op;
  f.options.seed = 42;
  f.nccl_version = "2.28.9";
  f.nvls = "NCCL_NVLS_ENABLE=0";
  return f;
}

// Summaries as the GPUs would report them when everything is right.
std::vector<RankSummary> correct_ranks(const RunFacts& f) {
  std::vector<RankSummary> ranks;
  ShardReference all;
  for (int r = 0; r < f.gpus; ++r) {
    RankSummary s;
    s.rank = s.device = r;
    std::strcpy(s.host, "node");
    s.reference = reference_of_shard(f.options.type, f.options.n_per_gpu, *f.options.seed, r);
    all = r == 0 ? s.reference : combine(all, s.reference);
    s.partial.integer = f.options.op == ReduceOp::sum ? s.reference.int_sum : int64_t(s.reference.max_value);
    s.partial.real = f.options.op == ReduceOp::sum ? double(s.reference.real_sum) : s.reference.max_value;
    s.local = ms(0.25);
    s.combine = ms(0.02 + 0.01 * r);
    s.total = ms(0.27 + 0.01 * r);
    s.combine_alone = ms(0.015);
    if (r == 0) s.local_alone = ms(0.25);
    ranks.push_back(s);
  }
  for (auto& s : ranks) {
    s.result.integer = f.options.op == ReduceOp::sum ? all.int_sum : int64_t(all.max_value);
    s.result.real = f.options.op == ReduceOp::sum ? double(all.real_sum) : all.max_value;
    s.result_after_timing = s.result;
  }
  return ranks;
}

}  // namespace

TEST(ShardValues, NeverAllZeroAndEachRankHasItsOwnRange) {
  const uint64_t s0 = shard_seed(7, 0), s3 = shard_seed(7, 3);
  EXPECT_NE(s0, s3);
  int64_t max0 = INT64_MIN, min3 = INT64_MAX;
  double real_max0 = 0, real_min3 = 1e9;
  for (uint64_t i = 0; i < 4096; ++i) {
    max0 = std::max<int64_t>(max0, shard_value<int32_t>(s0, 0, i));
    min3 = std::min<int64_t>(min3, shard_value<int32_t>(s3, 3, i));
    EXPECT_GT(shard_value<float>(s0, 0, i), 0.0f);
    real_max0 = std::max(real_max0, shard_value<double>(s0, 0, i));
    real_min3 = std::min(real_min3, shard_value<double>(s3, 3, i));
  }
  EXPECT_LE(max0, 1 << 20);
  EXPECT_GE(min3, 3 * (1 << 21) - (1 << 20));  // rank 3's integers lie above rank 0's
  EXPECT_LE(real_max0, 1.0);
  EXPECT_GT(real_min3, 0.0);
  EXPECT_NE(shard_value<int32_t>(s0, 0, 0), shard_value<int32_t>(s0, 0, 1));
}

TEST(ShardReference, MatchesAPlainLoopAndCombines) {
  const uint64_t n = (uint64_t(1) << 21) + 3;  // several threads' chunks
  const auto ints = reference_of_shard(ElementType::int32, n, 11, 2);
  const auto reals = reference_of_shard(ElementType::float32, n, 11, 2);
  int64_t sum = 0;
  long double real = 0;
  double imax = -INFINITY;
  const uint64_t s = shard_seed(11, 2);
  for (uint64_t i = 0; i < n; ++i) {
    sum += shard_value<int32_t>(s, 2, i);
    imax = std::max(imax, double(shard_value<int32_t>(s, 2, i)));
    real += shard_value<float>(s, 2, i);
  }
  EXPECT_EQ(ints.count, n);
  EXPECT_EQ(ints.int_sum, sum);
  EXPECT_EQ(ints.max_value, imax);
  EXPECT_NEAR(double(reals.real_sum), double(real), 1e-9 * double(real));
  EXPECT_EQ(reals.abs_sum, reals.real_sum);  // every value is positive
  const auto both = combine(ints, reference_of_shard(ElementType::int32, 5, 11, 3));
  EXPECT_EQ(both.count, n + 5);
  EXPECT_GT(both.max_value, ints.max_value);  // rank 3's range lies above rank 2's
  EXPECT_EQ(reference_of_shard(ElementType::float64, 0, 1, 0).max_value, -INFINITY);
}

TEST(Scaling, BandwidthAndEfficiency) {
  EXPECT_DOUBLE_EQ(gbps(4e9, 1000), 4.0);
  EXPECT_DOUBLE_EQ(gbps(double(uint64_t(1) << 30), 0.25), double(uint64_t(1) << 30) / 0.25e-3 / 1e9);
  EXPECT_DOUBLE_EQ(scaling_efficiency(8000, 2, 4000), 1.0);
  EXPECT_DOUBLE_EQ(scaling_efficiency(6000, 2, 4000), 0.75);
  EXPECT_DOUBLE_EQ(scaling_efficiency(3600, 1, 4000), 0.9);
  EXPECT_THROW(gbps(1, 0), std::invalid_argument);
  EXPECT_THROW(scaling_efficiency(1, 0, 1), std::invalid_argument);
  EXPECT_THROW(scaling_efficiency(1, 2, 0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(slowest_median_ms({ms(0.2), ms(0.5), ms(0.3)}), 0.5);
  EXPECT_THROW(slowest_median_ms({}), std::invalid_argument);
}

TEST(Scaling, AccumulatorsAndBounds) {
  EXPECT_EQ(accumulator_name(ElementType::int32, ReduceOp::sum), "int64");
  EXPECT_EQ(accumulator_name(ElementType::int32, ReduceOp::max), "int32");
  EXPECT_EQ(accumulator_name(ElementType::float32, ReduceOp::sum), "float");
  EXPECT_EQ(unit_roundoff(ElementType::float32), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff(ElementType::float64), std::ldexp(1.0, -53));
  // (n/256 + 25 + partials) · u · Σ|x|
  EXPECT_EQ(sum_error_bound(256 * 75, 0, ElementType::float32, 1 << 24), 100.0L);
  EXPECT_EQ(sum_error_bound(256 * 75, 2, ElementType::float32, 1 << 24), 102.0L);
}

TEST(Scaling, ChecksAgainstTheCpu) {
  ShardReference ref;
  ref.int_sum = -123456789012LL;
  ref.max_value = 77;
  ref.real_sum = 1000;
  ref.abs_sum = 1 << 24;
  Scalar got;
  got.integer = ref.int_sum;
  EXPECT_EQ(check_against_reference(ElementType::int32, ReduceOp::sum, ref, got, 1000, 2), "ok");
  got.integer += 1;
  EXPECT_NE(check_against_reference(ElementType::int32, ReduceOp::sum, ref, got, 1000, 2).find("WRONG"), std::string::npos);
  got.integer = 77;
  EXPECT_EQ(check_against_reference(ElementType::int32, ReduceOp::max, ref, got, 1000, 2), "ok");
  got.real = 77;
  EXPECT_EQ(check_against_reference(ElementType::float32, ReduceOp::max, ref, got, 1000, 2), "ok");
  got.real = 77.5;
  EXPECT_NE(check_against_reference(ElementType::float32, ReduceOp::max, ref, got, 1000, 2).find("WRONG"), std::string::npos);
  // float sum: bound (0 + 25 + 2) · 2^-24 · 2^24 = 27
  got.real = 1027;
  EXPECT_EQ(check_against_reference(ElementType::float32, ReduceOp::sum, ref, got, 100, 2), "ok");
  got.real = 1027.5;
  EXPECT_NE(check_against_reference(ElementType::float32, ReduceOp::sum, ref, got, 100, 2).find("> bound"), std::string::npos);
}

TEST(Scaling, TheCombineCheckCatchesAMissingGpu) {
  std::vector<Scalar> partials(4);
  for (int i = 0; i < 4; ++i) partials[i].real = partials[i].integer = 1000 + i;
  Scalar all;
  all.real = all.integer = 4006;
  EXPECT_EQ(check_combine(ElementType::float32, ReduceOp::sum, partials, all), "ok");
  EXPECT_EQ(check_combine(ElementType::int32, ReduceOp::sum, partials, all), "ok");
  Scalar missing;
  missing.real = missing.integer = 4006 - 1003;
  EXPECT_NE(check_combine(ElementType::float64, ReduceOp::sum, partials, missing).find("WRONG"), std::string::npos);
  EXPECT_NE(check_combine(ElementType::int32, ReduceOp::sum, partials, missing).find("WRONG"), std::string::npos);
  Scalar top;
  top.real = top.integer = 1003;
  EXPECT_EQ(check_combine(ElementType::int32, ReduceOp::max, partials, top), "ok");
  EXPECT_NE(check_combine(ElementType::float32, ReduceOp::max, partials, partials[0]).find("WRONG"), std::string::npos);
  EXPECT_THROW(check_combine(ElementType::int32, ReduceOp::sum, {}, all), std::invalid_argument);
}

TEST(MultigpuReport, AggregateUsesTheSlowestGpuAndRankZerosBaseline) {
  const RunFacts f = facts(2, ElementType::int32, ReduceOp::sum, uint64_t(1) << 16);
  const auto ranks = correct_ranks(f);
  const Aggregate a = aggregate(f, ranks);
  EXPECT_DOUBLE_EQ(a.local_ms, 0.25);
  EXPECT_DOUBLE_EQ(a.combine_ms, 0.03);
  EXPECT_DOUBLE_EQ(a.total_ms, 0.28);
  EXPECT_DOUBLE_EQ(a.one_gpu_gbps, gbps(4.0 * (1 << 16), 0.25));
  EXPECT_DOUBLE_EQ(a.aggregate_gbps, gbps(2 * 4.0 * (1 << 16), 0.28));
  EXPECT_DOUBLE_EQ(a.efficiency, 0.25 / 0.28);
  EXPECT_EQ(a.check, "ok");
  auto no_baseline = ranks;
  no_baseline[0].local_alone = {};
  EXPECT_THROW(aggregate(f, no_baseline), std::invalid_argument);
  EXPECT_THROW(aggregate(f, {}), std::invalid_argument);
}

TEST(MultigpuReport, TablesAndChecks) {
  for (ElementType type : {ElementType::int32, ElementType::float32, ElementType::float64}) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::max}) {
      const RunFacts f = facts(3, type, op, 4099);
      const auto ranks = correct_ranks(f);
      report::Report r;
      EXPECT_FALSE(add_multigpu_results(r, f, ranks)) << bench::to_string(type) << " " << bench::to_string(op);
      ASSERT_EQ(r.tables.size(), 2u);
      EXPECT_EQ(r.tables[0].rows.size(), 3u);
      ASSERT_EQ(r.tables[1].rows.size(), 1u);
      EXPECT_EQ(r.tables[1].rows[0].back(), "ok");
      EXPECT_EQ(r.meta["gpus"], 3);
      EXPECT_EQ(r.meta["nccl_version"], "2.28.9");
      EXPECT_FALSE(report::render(r, report::Format::json).empty());

      auto wrong = ranks;  // rank 2 holds rank 0's partial instead of the combined result
      wrong[2].result = wrong[0].partial;
      report::Report w;
      EXPECT_TRUE(add_multigpu_results(w, f, wrong));
      EXPECT_NE(w.tables[1].rows[0].back().get<std::string>().find("rank 2 result"), std::string::npos);
    }
  }
}

TEST(MultigpuReport, NcclVersionStrings) {
  EXPECT_EQ(nccl_version_string(22809), "2.28.9");
  EXPECT_EQ(nccl_version_string(21903), "2.19.3");
  EXPECT_EQ(nccl_version_string(2708), "2.7.8");
}
