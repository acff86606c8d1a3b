// The one translation unit that compiles sumMatrixOnGPU2D.
#include "lab/grid_shape/sum_matrix_launch.hpp"

#include "lab/grid_shape/sum_matrix.cuh"

namespace warpfold::lab {

void launch_sum_matrix(float* a, float* b, float* c, int nx, int ny, dim3 grid, dim3 block, cudaStream_t stream) {
  book::sumMatrixOnGPU2D<<<grid, block, 0, stream>>>(a, b, c, nx, ny);
}

const void* sum_matrix_function() { return reinterpret_cast<const void*>(book::sumMatrixOnGPU2D); }

}  // namespace warpfold::lab
