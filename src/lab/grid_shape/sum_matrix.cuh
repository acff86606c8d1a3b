#pragma once
// sumMatrixOnGPU2D of *Professional CUDA C Programming* (chapter 3, sumMatrix.cu), as the seed text
// (seed 004, section 3.3) writes it: one thread per element of an NX × NY float matrix, a 2-D grid
// of 2-D blocks. The bounds check makes it exact for any grid that covers the matrix; the unsigned
// index limits NX × NY to 2^32 - 1 elements (the caller checks).

namespace warpfold::lab::book {

__global__ void sumMatrixOnGPU2D(float *A, float *B, float *C, int NX, int NY) {
    unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int iy = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int idx = iy * NX + ix;
    if (ix < NX && iy < NY) {
        C[idx] = A[idx] + B[idx];
    }
}

}  // namespace warpfold::lab::book
