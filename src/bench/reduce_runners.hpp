#pragma once
// One reduction of one library on one prepared input, behind a type-erased interface, so the
// benchmark's host logic stays out of the CUDA translation unit that instantiates CUB and Thrust.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace warpfold::bench {

enum class ElementType { int32, float32, float64 };
enum class ReduceOp { sum, max };
// warpfold_again: warpfold::reduce once more, timed in the same rounds as the warpfold row: the
// difference between the two rows is the run's noise.
// no_combine: warpfold's grid and loads, each block's own reduction, no grid-wide combine
// (bench/no_combine.cuh); its result is the XOR of the input's 32-bit words, whatever the operator.
enum class Library { warpfold, cub, thrust, warpfold_again, no_combine };

std::string to_string(ElementType t);
std::string to_string(ReduceOp op);
std::string to_string(Library lib);
size_t element_bytes(ElementType t);

class ReduceRunner {
 public:
  virtual ~ReduceRunner() = default;
  // Enqueues one reduction on the stream (Thrust's returns only when done: it hands back a value).
  virtual void run() = 0;
  // Waits and returns the last result, widened to double (exact for int32, float and double; the
  // no-combine row's 32-bit XOR as an unsigned number).
  virtual double result() = 0;
};

// Allocates what the library needs for n elements at d_in (temp storage, output) up front, so
// run() measures the reduction alone. The accumulator type is the element type for every
// library. Throws warpfold::cuda_error on allocation failure, std::invalid_argument for a
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

}  // namespace warpfold::bench
