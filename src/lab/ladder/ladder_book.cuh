#pragma once
// The reduction ladder as *Professional CUDA C Programming* (chapter 3) writes it, kept verbatim
// from the seed text (seed 003, the book's full listing) so that it can be measured as published.
//
// These kernels are exact only where the book's assumptions hold: n a multiple of
// blockDim.x × unroll factor, and blockDim.x ≥ 64 for the warp-unrolled ones. Elsewhere they read
// past n, drop the tail, or (at blockDim.x = 32) read the next block's data. The ladder reports
// that as WRONG; the fixed twins live in ladder_fixed.cuh.
//
// Known unsafety kept on purpose: `volatile` warp-synchronous code (a race under independent
// thread scheduling), `return` before `__syncthreads()`, and signed int overflow on large sums.
//
// Naming note: the book names the two-step variant `reduceUnrolling2`; seed 001 calls it
// `reduceUnroll2` and `reduceUnrollWarp8`. We keep the book's names.

namespace warpfold::lab::book {

// The warm-up kernel of seed 000 is reduceNeighbored under another name; it only takes the GPU
// out of its idle state before the first timed kernel.
__device__ __forceinline__ void neighbored_pairs(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x;
  if (idx >= n) return;
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void warmup(int* g_idata, int* g_odata, unsigned int n) {
  neighbored_pairs(g_idata, g_odata, n);
}

// Neighbored pairs with divergence: thread tid works when tid % (2*stride) == 0.
__global__ void reduceNeighbored(int* g_idata, int* g_odata, unsigned int n) {
  neighbored_pairs(g_idata, g_odata, n);
}

// Neighbored pairs, less divergence: the first threads of the block do the work.
__global__ void reduceNeighboredLess(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x;
  if (idx >= n) return;
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    int index = 2 * stride * tid;
    if (index < blockDim.x) {
      idata[index] += idata[index + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// Interleaved pairs: the stride starts at half the block and halves.
__global__ void reduceInterleaved(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x;
  if (idx >= n) return;
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrolling2(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 2;
  if (idx + blockDim.x < n) g_idata[idx] += g_idata[idx + blockDim.x];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrolling4(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 4 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 4;
  if (idx + 3 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4;
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

// The eight-way load that opens reduceUnrolling8 and every later kernel of the ladder.
__device__ __forceinline__ void unroll8_in_place(int* g_idata, unsigned int idx, unsigned int n) {
  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  }
}

// The book's last-warp unrolling: relies on lockstep execution of the warp (unsafe since Volta).
__device__ __forceinline__ void volatile_last_warp(int* idata, unsigned int tid) {
  if (tid < 32) {
    volatile int* vmem = idata;
    vmem[tid] += vmem[tid + 32];
    vmem[tid] += vmem[tid + 16];
    vmem[tid] += vmem[tid + 8];
    vmem[tid] += vmem[tid + 4];
    vmem[tid] += vmem[tid + 2];
    vmem[tid] += vmem[tid + 1];
  }
}

__global__ void reduceUnrolling8(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 8;
  unroll8_in_place(g_idata, idx, n);
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrollWarps8(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 8;
  unroll8_in_place(g_idata, idx, n);
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  volatile_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceCompleteUnrollWarps8(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 8;
  unroll8_in_place(g_idata, idx, n);
  __syncthreads();
  if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  volatile_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

template <unsigned int iBlockSize>
__global__ void reduceCompleteUnroll(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 8;
  unroll8_in_place(g_idata, idx, n);
  __syncthreads();
  if (iBlockSize >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (iBlockSize >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (iBlockSize >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (iBlockSize >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  volatile_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// Unrolling by two with the last warp unrolled (the book's reduceUnrollWarps).
__global__ void reduceUnrollWarps(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x * 2;
  if (idx + blockDim.x < n) g_idata[idx] += g_idata[idx + blockDim.x];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) {
      idata[tid] += idata[tid + stride];
    }
    __syncthreads();
  }
  volatile_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

}  // namespace warpfold::lab::book
