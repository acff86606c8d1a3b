#pragma once
// The warp-divergence kernels of *Professional CUDA C Programming* (chapter 3, simpleDivergence.cu),
// kept as the seed text (seed 002) writes them, plus the corrected mathKernel4 and a controlled pair
// of the lab's own (maskKernel, at the end).
//
// Every kernel writes 100 where its condition holds and 200 elsewhere, one float per thread, with
// no bounds check (as the book): the caller allocates grid × block floats.
//
// This header is compiled twice, optimised and with device debug (-G), so that the two builds can
// be timed side by side: WARPFOLD_DIVERGENCE_BUILD names the namespace of each copy, which keeps
// the two sets of kernels apart at link time.

#ifndef WARPFOLD_DIVERGENCE_BUILD
#error "define WARPFOLD_DIVERGENCE_BUILD (the namespace of this build of the kernels) before including"
#endif

namespace warpfold::lab::divergence::WARPFOLD_DIVERGENCE_BUILD {

// Even and odd threads take different branches: every warp diverges.
__global__ void mathKernel1(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    if (tid % 2 == 0)
    {
        ia = 100.0f;
    }
    else
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}

// The branch changes only from one warp to the next: no warp diverges.
__global__ void mathKernel2(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    if ((tid / warpSize) % 2 == 0)
    {
        ia = 100.0f;
    }
    else
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}

// mathKernel1's condition as a predicate and two independent ifs (the book's hint that the
// compiler predicates short branches).
__global__ void mathKernel3(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    bool ipred = (tid % 2 == 0);

    if (ipred)
    {
        ia = 100.0f;
    }

    if (!ipred)
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}

// As the book wrote it. `==` binds tighter than `&`, so the condition is itid & (0x01 == 0), that
// is itid & 0: never true, every thread takes the else branch and writes 200. Kept to be measured;
// host compilers that see this body warn (-Wparentheses), silenced here because the bug is the
// point. The intended kernel is mathKernel4_fixed.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
__global__ void mathKernel4(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    int itid = tid >> 5;

    if (itid & 0x01 == 0)
    {
        ia = 100.0f;
    }
    else
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}
#pragma GCC diagnostic pop

// What mathKernel4 means: the warp index (tid >> 5) is even. Warp-granular, like mathKernel2.
__global__ void mathKernel4_fixed(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    int itid = tid >> 5;

    if ((itid & 0x01) == 0)
    {
        ia = 100.0f;
    }
    else
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}

// The seed's warm-up: mathKernel2's code, run first to take the GPU out of its idle state.
__global__ void warmingup(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia, ib;
    ia = ib = 0.0f;

    if ((tid / warpSize) % 2 == 0)
    {
        ia = 100.0f;
    }
    else
    {
        ib = 200.0f;
    }

    c[tid] = ia + ib;
}

// Not in the book: a controlled pair that makes divergence visible in both builds.
//
// The book's branches are one assignment long: at -O3 nvcc turns them into a select and no warp
// diverges; and the kernels are bound by their stores, so even a real branch costs little. Here
// each side of the branch does kBranchWork steps of dependent integer arithmetic (a different
// recurrence per side, so the compiler can neither merge the two sides nor turn the loops into
// a select), and writes the book's 100 or 200. A warp whose threads take both sides runs both
// loops one after the other: expect about twice the time of a warp that takes one side.
// One template gives both kernels: Bit = 0x01 splits every warp, Bit = 0x20 (warp size 32)
// changes only from one warp to the next. Any difference in time is divergence.
constexpr int kBranchWork = 512;

template <int Bit>
__global__ void maskKernel(float *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = unsigned(tid);
    float value;
    if ((tid & Bit) == 0)
    {
#pragma unroll 1
        for (int k = 0; k < kBranchWork; ++k) x = x * 1664525u + 1013904223u;
        value = 100.0f;
    }
    else
    {
#pragma unroll 1
        for (int k = 0; k < kBranchWork + 7; ++k) x = (x ^ (x >> 7)) * 2654435761u;
        value = 200.0f;
    }
    // tid is never negative here (at most 2^30 threads), but the compiler cannot know it, so the
    // loops' result stays live and neither loop can be removed.
    c[tid] = (tid < 0 && x == 0u) ? -1.0f : value;
}

}  // namespace warpfold::lab::divergence::WARPFOLD_DIVERGENCE_BUILD
