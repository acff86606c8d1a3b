#include "multigpu/scaling.hpp"

#include "harness/int_sum_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace warpfold::multigpu {
namespace {

bool is_integer(ElementType type) { return type == ElementType::int32; }

std::string number(long double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17Lg", x);
  return buf;
}

}  // namespace

double gbps(double bytes, double ms) {
  if (!(ms > 0)) throw std::invalid_argument("bandwidth of a time that is not positive");
  return bytes / (ms * 1e-3) / 1e9;
}

double scaling_efficiency(double aggregate_gbps, int gpus, double one_gpu_gbps) {
  if (gpus < 1) throw std::invalid_argument("scaling efficiency needs at least one GPU");
  if (!(one_gpu_gbps > 0) || !(aggregate_gbps > 0)) throw std::invalid_argument("scaling efficiency of a bandwidth that is not positive");
  return aggregate_gbps / (gpus * one_gpu_gbps);
}

double slowest_median_ms(const std::vector<harness::TimingStats>& per_gpu) {
  if (per_gpu.empty()) throw std::invalid_argument("slowest median of no GPU");
  double slowest = per_gpu.front().median_ms;
  for (const auto& s : per_gpu) slowest = std::max(slowest, s.median_ms);
  return slowest;
}

double unit_roundoff(ElementType type) { return type == ElementType::float32 ? 0x1.0p-24 : 0x1.0p-53; }

std::string accumulator_name(ElementType type, ReduceOp op) {
  if (is_integer(type)) return op == ReduceOp::sum ? "int64" : "int32";
  return bench::to_string(type);
}

long double sum_error_bound(uint64_t n_per_gpu, int partials, ElementType type, long double abs_sum) {
  const long double terms = (long double)(n_per_gpu / 256 + 25) + partials;
  return terms * unit_roundoff(type) * abs_sum;
}

std::string check_against_reference(ElementType type, ReduceOp op, const ShardReference& ref, const Scalar& got,
                                    uint64_t n_per_gpu, int partials) {
  if (is_integer(type)) {
    const int64_t expected = op == ReduceOp::sum ? ref.int_sum : int64_t(ref.max_value);
    return harness::verdict(expected, got.integer);
  }
  if (op == ReduceOp::max) {
    if (got.real == ref.max_value) return "ok";
    return "WRONG expected " + number(ref.max_value) + " got " + number(got.real);
  }
  const long double error = std::fabs((long double)got.real - ref.real_sum);
  const long double bound = sum_error_bound(n_per_gpu, partials, type, ref.abs_sum);
  if (error <= bound) return "ok";
  return "WRONG error " + number(error) + " > bound " + number(bound) + " (expected " + number(ref.real_sum) + " got " +
         number(got.real) + ")";
}

std::string check_combine(ElementType type, ReduceOp op, const std::vector<Scalar>& partials, const Scalar& got) {
  if (partials.empty()) throw std::invalid_argument("check_combine: no partials");
  if (is_integer(type)) {
    int64_t expected = partials.front().integer;
    for (size_t i = 1; i < partials.size(); ++i) {
      expected = op == ReduceOp::sum ? expected + partials[i].integer : std::max(expected, partials[i].integer);
    }
    const std::string v = harness::verdict(expected, got.integer);
    return v == "ok" ? v : v + " (combine of the partials)";
  }
  long double expected = partials.front().real, magnitude = std::fabs((long double)partials.front().real);
  for (size_t i = 1; i < partials.size(); ++i) {
    expected = op == ReduceOp::sum ? expected + partials[i].real : std::max<long double>(expected, partials[i].real);
    magnitude += std::fabs((long double)partials[i].real);
  }
  const long double error = std::fabs((long double)got.real - expected);
  // N·u rather than (N-1)·u: the second-order terms of the classical bound, with room to spare.
  const long double bound = op == ReduceOp::sum ? partials.size() * unit_roundoff(type) * magnitude : 0;
  if (error <= bound) return "ok";
  return "WRONG combine of the partials: expected " + number(expected) + " got " + number(got.real) + " (error " +
         number(error) + " > bound " + number(bound) + ")";
}

double relative_error(ElementType type, ReduceOp op, const ShardReference& ref, const Scalar& got) {
  if (is_integer(type)) return 0;
  const long double expected = op == ReduceOp::sum ? ref.real_sum : (long double)ref.max_value;
  if (expected == 0) return double(std::fabs((long double)got.real));
  return double(std::fabs(((long double)got.real - expected) / expected));
}

}  // namespace warpfold::multigpu
