// One side of scripts/segmented-ab.sh: CSR float sums by whichever warpfold the include path
// holds, in namespace AB_SIDE (ab_new for this tree; ab_old for the older tree, built with
// -Dwarpfold=warpfold_old so that its kernels and state are its own).
#include <warpfold/ops.cuh>
#include <warpfold/segmented_reduce.cuh>

#include <cstdint>

namespace AB_SIDE {

cudaError_t csr_sum(void* temp, size_t& bytes, const float* in, float* out, uint64_t segments, const int32_t* offsets,
                    cudaStream_t stream) {
  return warpfold::segmented_reduce(temp, bytes, in, out, segments, offsets, offsets + 1, warpfold::plus{}, 0.0f,
                                    stream);
}

}  // namespace AB_SIDE
