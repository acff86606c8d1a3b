#pragma once
// The seed's nested kernels (section 3.6, dynamic parallelism) ported to CUDA Dynamic
// Parallelism 2 (CDP2), the only device runtime of sm_90 and later GPUs.
//
// Include from one translation unit only (src/lab/nested/nested_kernels.cu): the kernels are
// ordinary __global__ functions and the unit must be compiled with relocatable device code
// (-rdc=true) and device-linked against cudadevrt.
//
// What CDP2 took away: a thread can no longer wait for a child grid. Device-side
// cudaDeviceSynchronize() does not compile for sm_90, so the book's gpuRecursiveReduce cannot be
// built as written (it is quoted below). What CDP2 still guarantees, and the ports rely on:
//  - a child grid sees every global write its launching thread made before the launch, and, when
//    a __syncthreads() precedes the launch, the writes of the launching thread's whole block;
//  - a parent grid completes only after all its children: once the host's stream moves past the
//    top grid, the whole launch tree has finished and its writes are visible;
//  - a grid launched into cudaStreamTailLaunch starts only after its parent grid, and all other
//    work that grid launched, have completed. A grid has one tail stream, shared by its blocks:
//    two tail launches from one grid run one after the other, descendants included;
//  - a grid launched into cudaStreamFireAndForget may start at once, next to its parent.
//
// Each port keeps the book's idea (a parent folds half of its data and hands the remaining half
// to a child grid of half the size) and departs from the book where the book cannot compile or
// races; each departure is marked "Departure:". After every device-side launch the launching
// thread records the outcome (record_launch), so a failed launch reaches the host as a counted
// failure instead of a result that never arrives: nothing in these kernels waits for anything.

#include "lab/nested/nested_launch_record.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>

namespace warpfold::lab::nested {

// int addition with defined wrap-around (signed overflow is undefined behaviour in C++; the
// unsigned sum has the bits of the hardware's int add).
__device__ __forceinline__ int wrapping_add(int a, int b) {
  return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
}

// Call from the launching thread right after a device-side launch. Counts the launch, or the
// failure and its error code; returns whether the device runtime accepted the launch.
__device__ __forceinline__ bool record_launch(NestedLaunchRecord* record) {
  const cudaError_t rc = cudaGetLastError();
  if (rc == cudaSuccess) {
    atomicAdd(&record->launches, 1ull);
    return true;
  }
  atomicAdd(&record->failures, 1ull);
  atomicCAS(&record->first_error, 0, static_cast<int>(rc));
  return false;
}

// ---------------------------------------------------------------------------------------------
// nestedHelloWorld. The book's version (it compiles under CDP2; only its ordering changes):
//
//   __global__ void nestedHelloWorld(int const iSize,int iDepth) {
//       int tid = threadIdx.x;
//       printf("Recursion=%d: Hello World from thread %d"
//              "block %d\n",iDepth,tid,blockIdx.x);
//       if (iSize == 1) return;
//       int nthreads = iSize>>1;
//       if(tid == 0 && nthreads > 0) {
//           nestedHelloWorld<<<1, nthreads>>>(nthreads,++iDepth);
//           printf("-------> nested execution depth: %d\n",iDepth);
//       }
//   }
//
// Departure: the child goes into the tail-launch stream, so it starts after its parent grid has
// finished and printed: the lines come out in the order of the seed's output (all of depth d,
// then depth d + 1). The book's default-stream child may start while its parent still prints.
// Departure: a space between "%d" and "block" (the seed's printed output has one, its code not).
__global__ void nestedHelloWorld(int const iSize, int iDepth, NestedLaunchRecord* record) {
  const int tid = static_cast<int>(threadIdx.x);
  printf("Recursion=%d: Hello World from thread %d block %d\n", iDepth, tid, static_cast<int>(blockIdx.x));
  atomicAdd(&record->printed_lines, 1ull);
  if (iSize == 1) return;  // the recursion's exit
  const int nthreads = iSize >> 1;
  if (tid == 0 && nthreads > 0) {
    nestedHelloWorld<<<1, nthreads, 0, cudaStreamTailLaunch>>>(nthreads, iDepth + 1, record);
    if (record_launch(record)) {
      printf("-------> nested execution depth: %d\n", iDepth + 1);
      atomicAdd(&record->printed_lines, 1ull);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// gpuRecursiveReduce. The book's version (cannot compile for sm_90: device-side
// cudaDeviceSynchronize() was removed with CDP1):
//
//   __global__ void gpuRecursiveReduce (int *g_idata, int *g_odata, unsigned int isize) {
//       unsigned int tid = threadIdx.x;
//       int *idata = g_idata + blockIdx.x*blockDim.x;
//       int *odata = &g_odata[blockIdx.x];
//       if (isize == 2 && tid == 0) {
//           g_odata[blockIdx.x] = idata[0]+idata[1];
//           return;
//       }
//       int istride = isize>>1;
//       if(istride > 1 && tid < istride) {
//           idata[tid] += idata[tid + istride];
//       }
//       __syncthreads();
//       if(tid==0) {
//           gpuRecursiveReduce <<<1, istride>>>(idata,odata,istride);
//           cudaDeviceSynchronize();
//       }
//       __syncthreads();
//   }
//
// Every block of the top grid reduces its own tile of blockDim.x elements: a chain of one-block
// grids of blockDim.x / 2, / 4, ... threads, whose last (2 threads) writes the block's partial sum.
//
// Departure: no device-side wait and no second barrier. The parent has nothing left to do after
// the launch, so the wait only ordered the child after the parent block; the tail-launch stream,
// CDP2's documented replacement for that wait, gives the same order (the child starts after the
// whole parent grid is done). It keeps the cost that made the book's version slow: the top grid's
// tail launches share one tail stream, so the chains of all blocks run one after another.
// Departure: at the leaf every thread returns (the book lets thread 1 of the 2-thread leaf reach a
// barrier that thread 0 skipped); a 1-element tile, which the book never meets, is its own sum.
__global__ void gpuRecursiveReduce(int* g_idata, int* g_odata, unsigned int isize, NestedLaunchRecord* record) {
  const unsigned int tid = threadIdx.x;
  int* idata = g_idata + static_cast<size_t>(blockIdx.x) * blockDim.x;  // this block's tile
  int* odata = &g_odata[blockIdx.x];
  if (isize <= 2) {  // the chain's last grid
    if (tid == 0) g_odata[blockIdx.x] = isize == 2 ? wrapping_add(idata[0], idata[1]) : idata[0];
    return;
  }
  const unsigned int istride = isize >> 1;
  if (tid < istride) idata[tid] = wrapping_add(idata[tid], idata[tid + istride]);  // in place
  __syncthreads();  // the child must see the whole block's sums, not only thread 0's
  if (tid == 0) {
    gpuRecursiveReduce<<<1, istride, 0, cudaStreamTailLaunch>>>(idata, odata, istride, record);
    record_launch(record);
  }
}

// ---------------------------------------------------------------------------------------------
// gpuRecursiveReduceNosync. The book's version (it compiles under CDP2, but races):
//
//   __global__ void gpuRecursiveReduceNosync (int *g_idata, int *g_odata, unsigned int isize) {
//       unsigned int tid = threadIdx.x;
//       int *idata = g_idata + blockIdx.x * blockDim.x;
//       int *odata = &g_odata[blockIdx.x];
//       if (isize == 2 && tid == 0) {
//           g_odata[blockIdx.x] = idata[0] + idata[1];
//           return;
//       }
//       int istride = isize>>1;
//       if(istride > 1 && tid < istride) {
//           idata[tid] += idata[tid + istride];
//           if(tid==0) {
//               gpuRecursiveReduceNosync<<<1, istride>>>(idata,odata,istride);
//           }
//       }
//   }
//
// Departure: the barrier before the launch stays. The book removes it on the grounds that a child
// sees its parent's memory at launch, but that guarantee covers the launching thread's own writes;
// the other threads' sums are guaranteed visible only after a __syncthreads(). A barrier costs
// nanoseconds next to a launch's microseconds, so the lesson (no waiting) is unchanged.
// Departure: the child goes into the fire-and-forget stream: it may start at once, the parent never
// waits for it, and the chains of different blocks run side by side.
__global__ void gpuRecursiveReduceNosync(int* g_idata, int* g_odata, unsigned int isize, NestedLaunchRecord* record) {
  const unsigned int tid = threadIdx.x;
  int* idata = g_idata + static_cast<size_t>(blockIdx.x) * blockDim.x;
  int* odata = &g_odata[blockIdx.x];
  if (isize <= 2) {
    if (tid == 0) g_odata[blockIdx.x] = isize == 2 ? wrapping_add(idata[0], idata[1]) : idata[0];
    return;
  }
  const unsigned int istride = isize >> 1;
  if (tid < istride) idata[tid] = wrapping_add(idata[tid], idata[tid + istride]);
  __syncthreads();
  if (tid == 0) {
    gpuRecursiveReduceNosync<<<1, istride, 0, cudaStreamFireAndForget>>>(idata, odata, istride, record);
    record_launch(record);
  }
}

// ---------------------------------------------------------------------------------------------
// gpuRecursiveReduce2. The book's version (it compiles under CDP2, but races):
//
//   __global__ void gpuRecursiveReduce2(int *g_idata, int *g_odata, int iStride, int const iDim) {
//       int *idata = g_idata + blockIdx.x*iDim;
//       if (iStride == 1 && threadIdx.x == 0) {
//           g_odata[blockIdx.x] = idata[0]+idata[1];
//           return;
//       }
//       idata[threadIdx.x] += idata[threadIdx.x + iStride];
//       if(threadIdx.x == 0 && blockIdx.x == 0) {
//           gpuRecursiveReduce2 <<<gridDim.x,iStride/2>>>(g_idata,g_odata,iStride/2,iDim);
//       }
//   }
//
// One grid per level instead of one chain per block: the host launches gridDim.x blocks of
// iDim / 2 threads, and block 0's thread 0 launches the next level, again gridDim.x blocks, with
// half the threads. log2(iDim) - 1 device-side launches in all.
//
// Departure: the next level goes into the tail-launch stream. The book's child reads the halves
// written by every block of the parent grid, but nothing makes it wait for blocks other than block
// 0: on a large grid it may start before they have run. A tail launch starts only once the whole
// parent grid has finished, which is exactly the grid-wide barrier the algorithm needs.
__global__ void gpuRecursiveReduce2(int* g_idata, int* g_odata, int iStride, int const iDim, NestedLaunchRecord* record) {
  int* idata = g_idata + static_cast<size_t>(blockIdx.x) * iDim;
  if (iStride == 1) {  // one thread per block is left: write the block's partial sum
    if (threadIdx.x == 0) g_odata[blockIdx.x] = wrapping_add(idata[0], idata[1]);
    return;
  }
  idata[threadIdx.x] = wrapping_add(idata[threadIdx.x], idata[threadIdx.x + iStride]);
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    gpuRecursiveReduce2<<<gridDim.x, iStride / 2, 0, cudaStreamTailLaunch>>>(g_idata, g_odata, iStride / 2, iDim, record);
    record_launch(record);
  }
}

}  // namespace warpfold::lab::nested
