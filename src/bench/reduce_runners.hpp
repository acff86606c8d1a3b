#pragma once
// One reduction of one library on one prepared input, behind a type-erased interface, so the
// benchmark's host logic stays out of the CUDA translation unit that instantiates CUB and Thrust.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace warpfold::bench {

enum class ElementType { int8, int32, float16, float32, float64 };
enum class ReduceOp { sum, max };
// warpfold_again: warpfold::reduce timed a second time in the same rounds (float and double
// sums): its distance from the first is the run's noise.
// no_combine: warpfold's grid and loads, each block's own reduction, no grid-wide combine
// (bench/no_combine.cuh); its result is the XOR of the input's 32-bit words, whatever the operator.
// warpfold_reproducible: warpfold::reproducible_sum (float and double sums).
enum class Library { warpfold, cub, thrust, warpfold_again, no_combine, warpfold_reproducible };

std::string to_string(ElementType t);
std::string to_string(ReduceOp op);
std::string to_string(Library lib);
size_t element_bytes(ElementType t);
// The accumulator of a reduce of `t` by `op`, the same in every library: sums of int8 accumulate
// in int64 and sums of half in float, as a caller would ask; every other reduce in its own type.
std::string accumulator_of(ElementType t, ReduceOp op);
// Whether that accumulator is a floating-point type, and its unit roundoff (sums' error bounds).
double accumulator_unit_roundoff(ElementType t, ReduceOp op);

class ReduceRunner {
 public:
  virtual ~ReduceRunner() = default;
  // Enqueues one reduction on the stream (Thrust's returns only when done: it hands back a value).
  virtual void run() = 0;
  // Waits and returns the last result, widened to double (exact for every accumulator of the
  // bench's sizes; the no-combine row's 32-bit XOR as an unsigned number).
  virtual double result() = 0;
};

// Allocates what the library needs for n elements at d_in (temp storage, output) up front, so
// run() measures the reduction alone. The accumulator is accumulator_of's, in every library.
// Throws warpfold::cuda_error on allocation failure, std::invalid_argument for a
// no-combine row on an input that is not 16-byte aligned.
std::unique_ptr<ReduceRunner> make_runner(Library lib, ElementType type, ReduceOp op, const void* d_in,
                                          uint64_t n, cudaStream_t stream);

// An empty kernel: what one launch costs when it does nothing (the launch floor), launched with
// <<<>>> as a caller's own kernel would be.
void launch_empty_kernel(cudaStream_t stream);
// The same kernel launched the way warpfold launches its own (the driver's cuLaunchKernel with a
// handle looked up once: detail/kernel_launch.cuh), on `device`, the current device. Throws
// warpfold::cuda_error if the launch fails.
void launch_empty_kernel_as_warpfold(int device, cudaStream_t stream);

// The architecture (a __CUDA_ARCH__ value) of this build's warpfold code that runs on the current
// device: its PTX's, which selects the tuning policy (detail::policy_for_arch).
unsigned warpfold_code_arch();

}  // namespace warpfold::bench
