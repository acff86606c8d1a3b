#pragma once
// The arithmetic of the multi-GPU report: bandwidths, scaling efficiency, the slowest GPU's
// median, and the checks of partial and combined results against the CPU. Plain functions, so
// that the CPU tests pin them down.

#include "harness/stats.hpp"
#include "multigpu/multigpu_options.hpp"
#include "multigpu/scalar.hpp"
#include "multigpu/shard_reference.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::multigpu {

// Bytes per second in GB/s (1e9 B/s). Throws std::invalid_argument for a time that is not positive.
double gbps(double bytes, double ms);

// aggregate / (gpus × one_gpu): 1 is perfect scaling. Throws std::invalid_argument for gpus < 1
// or a bandwidth that is not positive.
double scaling_efficiency(double aggregate_gbps, int gpus, double one_gpu_gbps);

// The largest median (the slowest GPU sets the pace of a collective). Throws on an empty list.
double slowest_median_ms(const std::vector<harness::TimingStats>& per_gpu);

// Half the machine epsilon of the accumulator: 2^-24 (float), 2^-53 (double).
double unit_roundoff(ElementType type);

// The accumulator type's name as the report shows it ("int64" for int32 sums).
std::string accumulator_name(ElementType type, ReduceOp op);

// How far a floating-point sum may be from the exact one: warpfold::reduce's bound on one GPU,
// (n/256 + 25)·u·Σ|x|, plus `partials`·u·Σ|x| for NCCL's sum of that many partials (0 for a
// single GPU's partial).
long double sum_error_bound(uint64_t n_per_gpu, int partials, ElementType type, long double abs_sum);

// "ok" or "WRONG …": `got` against the reference of the data it reduced (`partials` as above).
// Integers and maxima must be exact; floating-point sums within sum_error_bound.
std::string check_against_reference(ElementType type, ReduceOp op, const ShardReference& ref, const Scalar& got,
                                    uint64_t n_per_gpu, int partials);

// "ok" or "WRONG …": the combined result against the partials the GPUs held: exact for integers
// and maxima; within N·u·Σ|partial| for floating-point sums, a bound tight enough to show a
// missing or doubled GPU however large the shards.
std::string check_combine(ElementType type, ReduceOp op, const std::vector<Scalar>& partials, const Scalar& got);

// |got - expected| / |expected| for floating-point results; 0 for integers.
double relative_error(ElementType type, ReduceOp op, const ShardReference& ref, const Scalar& got);

}  // namespace warpfold::multigpu
