#pragma once
// Launching the book's sumMatrixOnGPU2D (sum_matrix.cuh) from host code.

#include <cuda_runtime_api.h>

namespace warpfold::lab {

// C = A + B over an nx × ny row-major matrix, with a grid × block launch on `stream`. Launch errors
// (an invalid configuration) are left for the caller's cudaGetLastError.
void launch_sum_matrix(float* a, float* b, float* c, int nx, int ny, dim3 grid, dim3 block, cudaStream_t stream);

// The kernel's entry point, for cudaFuncGetAttributes and the occupancy calculator.
const void* sum_matrix_function();

}  // namespace warpfold::lab
