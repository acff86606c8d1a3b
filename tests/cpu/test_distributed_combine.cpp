// How warpfold::distributed combines the GPUs' partials, on the host: which accumulator types and
// operators NCCL reduces and which are gathered and folded with warpfold's operator (so that a
// floating-point min or max keeps a NaN of one GPU, as warpfold::reduce does on one), the layout
// of a rank's temp storage, the fold in rank order, and the reproducible sum's binned partials,
// whose merge has the bits of one accumulator over all the data whatever the split over GPUs.
// The device runs the same fold (fold_in_rank_order) in one thread.
#include "reference/reproducible_support.hpp"

#include <warpfold/distributed/binned_partial.hpp>
#include <warpfold/distributed/combine_plan.hpp>
#include <warpfold/distributed/shard_plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace warpfold;
using namespace warpfold::distributed;
using namespace warpfold::testing;
using distributed::detail::binned_partial;
using distributed::detail::binned_partial_form;
using distributed::detail::binned_partial_plus;
using distributed::detail::binned_partial_value;
using warpfold::detail::binned_float_t;

namespace {

struct user_functor {
  template <class T>
  T operator()(T a, T b) const { return a + b; }
};

uint64_t fresh_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

}  // namespace

// --- which path ---------------------------------------------------------------------------------

TEST(CombinePath, NcclReducesWhereItsArithmeticIsWarpfolds) {
  // Every operator on integers: exact, wrapping alike.
  EXPECT_EQ((combine_path_v<int8_t, plus>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<uint8_t, maximum>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<int32_t, minimum>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<uint32_t, multiplies>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<int64_t, maximum>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<unsigned long long, minimum>), combine_path::nccl_reduces);
  // Sums and products of floating-point types: IEEE on one GPU and on many.
  EXPECT_EQ((combine_path_v<float, plus>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<double, multiplies>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<__half, plus>), combine_path::nccl_reduces);
  EXPECT_EQ((combine_path_v<__nv_bfloat16, multiplies>), combine_path::nccl_reduces);
}

TEST(CombinePath, FloatingMinAndMaxAreGatheredAndFolded) {
  EXPECT_EQ((combine_path_v<float, minimum>), combine_path::gathered_fold);
  EXPECT_EQ((combine_path_v<float, maximum>), combine_path::gathered_fold);
  EXPECT_EQ((combine_path_v<double, minimum>), combine_path::gathered_fold);
  EXPECT_EQ((combine_path_v<double, maximum>), combine_path::gathered_fold);
  EXPECT_EQ((combine_path_v<__half, minimum>), combine_path::gathered_fold);
  EXPECT_EQ((combine_path_v<__nv_bfloat16, maximum>), combine_path::gathered_fold);
}

TEST(CombinePath, WhatNcclCannotCarryIsUnsupported) {
  EXPECT_EQ((combine_path_v<int16_t, plus>), combine_path::unsupported);
  EXPECT_EQ((combine_path_v<bool, maximum>), combine_path::unsupported);
  EXPECT_EQ((combine_path_v<key_value<float>, arg_min>), combine_path::unsupported);
  EXPECT_EQ((combine_path_v<compensated<double>, compensated_plus>), combine_path::unsupported);
  EXPECT_EQ((combine_path_v<uint32_t, bit_xor>), combine_path::unsupported);
  EXPECT_EQ((combine_path_v<float, user_functor>), combine_path::unsupported);
}

TEST(CombinePath, OnlyTheGatheredPathNeedsSlots) {
  EXPECT_EQ((gathered_slots<float, maximum>(4)), 4u);
  EXPECT_EQ((gathered_slots<double, minimum>(1)), 1u);
  EXPECT_EQ((gathered_slots<float, maximum>(0)), 0u);
  EXPECT_EQ((gathered_slots<float, plus>(4)), 0u);
  EXPECT_EQ((gathered_slots<int32_t, maximum>(8)), 0u);
}

// --- the temp storage of a rank ---------------------------------------------------------------------

TEST(RankTempLayout, ThePartialFollowsTheReduceAlignedThenTheSlots) {
  struct partial_type {
    size_t size, align;
  };
  const std::vector<partial_type> partials{{2, 2}, {4, 4}, {8, 8}, {16, 8}, {40, 8}, {72, 8}};
  for (size_t reduce_bytes : {0, 1, 7, 8, 9, 255, 4104}) {
    for (const partial_type& p : partials) {
      for (size_t slots : {0, 1, 2, 8}) {
        const rank_temp_layout l = layout_rank_temp(reduce_bytes, p.size, p.align, slots);
        const std::string at = "reduce bytes " + std::to_string(reduce_bytes) + ", partial " + std::to_string(p.size) +
                               " bytes, " + std::to_string(slots) + " slots";
        EXPECT_GE(l.partial_offset, reduce_bytes) << at;
        EXPECT_LT(l.partial_offset, reduce_bytes + p.align) << at;
        EXPECT_EQ(l.partial_offset % p.align, 0u) << at;
        EXPECT_EQ(l.gathered_offset, l.partial_offset + p.size) << at;
        EXPECT_EQ(l.gathered_offset % p.align, 0u) << at;
        EXPECT_EQ(l.bytes, l.gathered_offset + slots * p.size) << at;
      }
    }
  }
}

TEST(RankTempLayout, NcclsPathNeedsThePartialAlone) {
  EXPECT_EQ(layout_rank_temp(4100, 8, 8, 0).bytes, 4112u);
  EXPECT_EQ(layout_rank_temp(4100, 4, 4, gathered_slots<float, plus>(8)).bytes, 4104u);
  EXPECT_EQ(layout_rank_temp(4100, 4, 4, gathered_slots<float, maximum>(8)).bytes, 4104u + 8 * 4);
}

// --- the fold in rank order -------------------------------------------------------------------------

// NCCL's fmin / fmax drop a NaN partial unless every partial is NaN; warpfold's operators folded in
// rank order keep it whichever rank holds it, as warpfold::reduce does on one GPU.
template <class F>
void check_nan_partial_wins() {
  std::mt19937_64 gen(fresh_seed());
  std::uniform_real_distribution<F> value(-1e6, 1e6);
  for (int ranks = 1; ranks <= 8; ++ranks) {
    for (int nan_rank = 0; nan_rank < ranks; ++nan_rank) {
      std::vector<F> partials(static_cast<size_t>(ranks));
      for (F& p : partials) p = value(gen);
      partials[size_t(nan_rank)] = std::numeric_limits<F>::quiet_NaN();
      const std::string at = std::to_string(ranks) + " ranks, NaN from rank " + std::to_string(nan_rank);
      EXPECT_TRUE(std::isnan(fold_in_rank_order(partials.data(), ranks, minimum{}))) << at;
      EXPECT_TRUE(std::isnan(fold_in_rank_order(partials.data(), ranks, maximum{}))) << at;
      const F by_fmin = fold_in_rank_order(partials.data(), ranks, [](F a, F b) { return std::fmin(a, b); });
      EXPECT_EQ(std::isnan(by_fmin), ranks == 1) << at << ": NCCL's fmin";
    }
  }
}

TEST(FoldInRankOrder, ANaNPartialWinsWhereNcclsFminWouldDropIt) {
  check_nan_partial_wins<float>();
  check_nan_partial_wins<double>();
}

TEST(FoldInRankOrder, InfinitiesAndNumbersAsOnOneGpu) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> p{3.5, -inf, 2.0, inf, -7.25};
  EXPECT_EQ(fold_in_rank_order(p.data(), 5, maximum{}), inf);
  EXPECT_EQ(fold_in_rank_order(p.data(), 5, minimum{}), -inf);
  EXPECT_EQ(fold_in_rank_order(p.data(), 3, maximum{}), 3.5);
  EXPECT_EQ(fold_in_rank_order(p.data() + 3, 2, minimum{}), -7.25);
  EXPECT_EQ(fold_in_rank_order(p.data() + 1, 1, maximum{}), -inf);  // one rank: its partial
}

TEST(FoldInRankOrder, FoldsRankZeroFirst) {
  const std::vector<int> p{1, 2, 3, 4};
  EXPECT_EQ(fold_in_rank_order(p.data(), 4, [](int a, int b) { return a * 10 + b; }), 1234);
}

// --- the reproducible sum's partials ----------------------------------------------------------------

// One GPU's partial as its local reduce leaves it: the shard's elements folded (the first by the
// form's lift and the operator, the rest by accumulate, as the kernel's threads do), then the
// form's finish.
template <class T>
binned_partial<binned_float_t<T>> shard_partial(const std::vector<T>& data, shard_extent e) {
  using F = binned_float_t<T>;
  using acc_t = warpfold::detail::binned_accumulator<F>;
  const binned_partial_form<F> form{{}, e.count};
  acc_t acc{};
  for (uint64_t i = e.begin; i < e.begin + e.count; ++i) {
    if (i == e.begin) acc = warpfold::detail::binned_plus{}(acc, form.template lift<acc_t>(data[i], i));
    else form.accumulate(acc, data[i], i);
  }
  return form.finish(warpfold::detail::binned_plus{}, acc_t{}, acc, e.count > 0);
}

template <class T>
binned_float_t<T> merged_value(const std::vector<T>& data, const std::vector<shard_extent>& split) {
  std::vector<binned_partial<binned_float_t<T>>> partials;
  for (const auto& e : split) partials.push_back(shard_partial(data, e));
  return binned_partial_value{}(fold_in_rank_order(partials.data(), int(partials.size()), binned_partial_plus{}));
}

template <class T>
void check_any_split_gives_reproblas_bits() {
  std::mt19937_64 gen(fresh_seed());
  const auto& kinds = every_sum_data();
  size_t k = 0;
  for (size_t n : {0, 1, 2, 513, 4097, 20011}) {
    for (int gpus : {1, 2, 3, 8}) {
      const sum_data kind = kinds[k++ % kinds.size()];
      const uint64_t seed = gen();
      const auto data = make_sum_data<T>(kind, n, seed);
      const auto expected = reference_sum(data);
      const auto split = random_split(n, gpus, gen);
      const auto got = merged_value(data, split);
      EXPECT_TRUE(same_bits(got, expected)) << name_of(kind) << " data, n " << n << " over " << gpus << " GPUs, seed "
                                            << seed << ": " << bits_of(got) << ", ReproBLAS " << bits_of(expected);
    }
  }
}

TEST(BinnedPartials, MergedInRankOrderTheyHaveReproBLASsBitsWhateverTheSplitFloat) {
  check_any_split_gives_reproblas_bits<float>();
}
TEST(BinnedPartials, MergedInRankOrderTheyHaveReproBLASsBitsWhateverTheSplitDouble) {
  check_any_split_gives_reproblas_bits<double>();
}
TEST(BinnedPartials, MergedInRankOrderTheyHaveReproBLASsBitsWhateverTheSplitHalfAndBfloat16) {
  check_any_split_gives_reproblas_bits<__half>();
  check_any_split_gives_reproblas_bits<__nv_bfloat16>();
}

// Each GPU's sum rounded, then the roundings added (a combine of reproducible_sum's results by
// ncclSum): other bits for most splits of cancelling data. The test above tells the two apart.
TEST(BinnedPartials, RoundedPerGpuSumsWouldGiveOtherBits) {
  std::mt19937_64 gen(fresh_seed());
  int cases = 0, differing = 0;
  for (; cases < 40; ++cases) {
    const auto data = make_sum_data<float>(sum_data::cancelling, 4097, gen());
    float rounded_then_added = 0.0f;
    for (const auto& e : random_split(data.size(), 4, gen)) {
      rounded_then_added += binned_partial_value{}(shard_partial(data, e));
    }
    differing += !same_bits(rounded_then_added, reference_sum(data));
  }
  EXPECT_GE(differing, cases / 4) << differing << " of " << cases << " splits differed";
}

// Beyond ReproBLAS's capacity over all GPUs the carries could round: NaN, never a wrong number.
TEST(BinnedPartials, PastTheFloatCapacityOverAllGpusTheSumIsNaN) {
  const uint64_t capacity = warpfold::detail::binned_params<float>::capacity;
  const std::vector<float> data{1.5f, -0.25f, 3.0f};
  auto a = shard_partial(data, {0, 2}), b = shard_partial(data, {2, 1});
  const float within = binned_partial_value{}(binned_partial_plus{}(a, b));
  EXPECT_EQ(within, 4.25f);
  a.count = capacity - 10;
  b.count = 10;
  EXPECT_TRUE(same_bits(binned_partial_value{}(binned_partial_plus{}(a, b)), within)) << "at the capacity";
  b.count = 11;
  const float past = binned_partial_value{}(binned_partial_plus{}(a, b));
  EXPECT_TRUE(same_bits(past, warpfold::detail::binned_canonical_nan<float>())) << bits_of(past);
  // The counts saturate: a partial whose count is all ones (a stalled reduce) cannot wrap to a small one.
  b.count = UINT64_MAX;
  EXPECT_EQ(binned_partial_plus{}(a, b).count, UINT64_MAX);
  EXPECT_TRUE(std::isnan(binned_partial_value{}(binned_partial_plus{}(a, b))));
}
