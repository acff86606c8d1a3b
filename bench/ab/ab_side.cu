// One side of scripts/ab-bench.sh: the sums of whichever warpfold the include path holds, in
// namespace AB_SIDE (ab_new for this tree; ab_old for the older tree, built with
// -Dwarpfold=warpfold_old so that its kernels and state are its own).
#include <warpfold/ops.cuh>
#include <warpfold/reduce.cuh>

#include <cstdint>

namespace AB_SIDE {

cudaError_t sum(void* temp, size_t& bytes, const int32_t* in, int64_t* out, uint64_t n, cudaStream_t stream) {
  return warpfold::reduce(temp, bytes, in, out, n, warpfold::plus{}, int64_t(0), stream);
}
cudaError_t sum(void* temp, size_t& bytes, const float* in, float* out, uint64_t n, cudaStream_t stream) {
  return warpfold::reduce(temp, bytes, in, out, n, warpfold::plus{}, 0.0f, stream);
}
cudaError_t sum(void* temp, size_t& bytes, const double* in, double* out, uint64_t n, cudaStream_t stream) {
  return warpfold::reduce(temp, bytes, in, out, n, warpfold::plus{}, 0.0, stream);
}
cudaError_t max(void* temp, size_t& bytes, const __half* in, __half* out, uint64_t n, cudaStream_t stream) {
  return warpfold::reduce(temp, bytes, in, out, n, warpfold::maximum{}, __float2half(-INFINITY), stream);
}

}  // namespace AB_SIDE
