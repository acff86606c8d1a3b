#pragma once
// reduceUnrolling8 with its eight loads written as a loop under `#pragma unroll`, the rest the
// book's kernel line for line: the experiment that tests seed 001's claim that nvcc cannot unroll
// such loops, so that it must be done by hand (docs/unrolling.md compares the two kernels' SASS
// and times).

namespace warpfold::lab::book {

__global__ void reduceUnrolling8Pragma(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 8;
  if (idx + 7 * blockDim.x < n) {
    int sum = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

}  // namespace warpfold::lab::book
