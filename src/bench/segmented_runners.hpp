#pragma once
// The segmented bench's runs on one prepared shape, behind a type-erased interface, so that the
// host logic (bench/segmented_bench.cpp) stays out of the CUDA unit that instantiates warpfold's
// segmented kernels and CUB's: warpfold, cub::DeviceSegmentedReduce, and the roofline probe.

#include <warpfold/detail/segmented_plan.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace warpfold::bench {

// segmented: CSR offsets; fixed: segments of one size (segmented_reduce's segment_size overload);
// axis: reduce_axis over a row-major matrix, dim 1 (rows) or 0 (columns).
enum class ShapeKind { segmented, fixed, axis };
const char* to_string(ShapeKind kind);

// copy_then_warpfold: a strided view gathered into contiguous memory, then reduced (what a caller
// without strided reductions does), the yardstick of strided views.
enum class SegmentedLibrary { warpfold, cub, probe, copy_then_warpfold };
const char* to_string(SegmentedLibrary lib);

// One shape's device data: float elements, and what each kind reads them as.
struct SegmentedInput {
  ShapeKind kind = ShapeKind::segmented;
  const float* in = nullptr;  // 16-byte aligned
  uint64_t elements = 0;      // the elements the reduction reads
  const int32_t* offsets = nullptr;  // segmented: segments + 1 CSR offsets, 16-byte aligned
  uint64_t segments = 0;      // outputs
  axis_shape shape;           // fixed and axis: the [outer][axis][inner] shape of the reduction
  bool strided = false;       // axis: a strided view (shape's strides are not contiguous ones)
  bool with_length = false;   // segmented: warpfold takes `elements` as the input's length
};

// Whether CUB has the operation: offsets, fixed sizes and contiguous matrix rows (as offsets every
// row long), not columns or strided views.
bool cub_has(const SegmentedInput& input);

class SegmentedRunner {
 public:
  virtual ~SegmentedRunner() = default;
  // Enqueues one run on the stream.
  virtual void run() = 0;
  // Waits and returns the outputs of the last run (the probe's are not sums: it has no check).
  virtual std::vector<float> outputs() = 0;
};

// Allocates what the run needs up front (temp storage, outputs), so that run() times the work
// alone. Throws warpfold::cuda_error on failure, std::invalid_argument for CUB on columns.
std::unique_ptr<SegmentedRunner> make_segmented_runner(SegmentedLibrary lib, const SegmentedInput& input,
                                                       cudaStream_t stream);

}  // namespace warpfold::bench
