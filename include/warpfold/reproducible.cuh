#pragma once
// warpfold::reproducible_sum — a sum whose bits depend on the input values alone: not on their
// order, the GPU or its grid, the block size, the pointer's alignment or the stream.
//
//   size_t bytes = 0;
//   warpfold::reproducible_sum(nullptr, bytes, d_in, d_out, n);  // query
//   cudaMalloc(&d_temp, bytes);
//   warpfold::reproducible_sum(d_temp, bytes, d_in, d_out, n, stream);
//
// * Elements: float and double, and half and bfloat16 summed as floats (their values convert to
//   float exactly). *d_out is a float, or a double for double elements (reproducible_sum_t<T>).
// * The algorithm is ReproBLAS's binned summation with its default parameters: three folds,
//   bins of 13 bits for float and 40 for double (detail/binned.cuh; docs/design.md says why).
//   The result is bitwise ReproBLAS's (reproBLAS_rssum / reproBLAS_rdsum) for the same values,
//   in any order and split in any way.
// * Accuracy (ReproBLAS's bound, binned_sbbound / binned_dbbound): |result - exact sum| is at
//   most n · 2^(-2W) · max|x| + 7ε·|result| to first order, W the bin width and ε the type's
//   epsilon: n · 2^-26 · max|x| for float, n · 2^-80 · max|x| for double.
// * NaN and infinities: any NaN, or +inf with -inf, gives NaN (the canonical quiet NaN, positive,
//   the same bits everywhere); otherwise an infinity gives that infinity. A finite sum beyond the
//   type's range gives ±inf. Zeros, and n = 0, give +0.
// * A float accumulator takes at most 2^32 - 512 elements (ReproBLAS's capacity: beyond it the
//   carries could round); a larger n for float, half or bfloat16 is cudaErrorInvalidValue.
// * As warpfold::reduce (reduce.cuh) otherwise: asynchronous on `stream`, one kernel launch, temp
//   storage of the query's size that needs no initialisation, the same errors.
// * Over several GPUs: warpfold::distributed::reproducible_sum (distributed.cuh), the same bits.

#include <warpfold/detail/binned.cuh>
#include <warpfold/detail/reduce_dispatch.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace warpfold {

// The result type of reproducible_sum over elements of T: double for double, else float.
template <class T>
using reproducible_sum_t = detail::binned_float_t<T>;

namespace detail {

// A reduce of binned accumulators through dispatch_reduce: the elements folded as reproducible_sum
// folds them, the output what `form` finishes the accumulator into (its value for reproducible_sum;
// the accumulator itself for each GPU of the distributed one). Pick names a kernel as there.
template <kernel_pick Pick = kernel_pick::by_size, class T, class Out, class Form>
cudaError_t dispatch_binned(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, uint64_t n, Form form,
                            cudaStream_t stream) {
  static_assert(binned_input<T>, "reproducible_sum takes float, double, __half or __nv_bfloat16 elements");
  using F = binned_float_t<T>;
  if (d_temp != nullptr && n > binned_params<F>::capacity) return cudaErrorInvalidValue;
  // Binned accumulators keep ptxas's register count, so by size they would stay narrow; large
  // inputs read faster through the wide kernel, which every architecture has.
  if constexpr (Pick == kernel_pick::by_size && has_wide_loads<T>) {
    if (n * sizeof(T) > kHopperPolicy.wide_above_bytes) {
      return dispatch_reduce<kernel_pick::wide>(d_temp, temp_bytes, d_in, d_out, n, binned_accumulator<F>{},
                                                binned_plus{}, form, stream);
    }
  }
  return dispatch_reduce<Pick>(d_temp, temp_bytes, d_in, d_out, n, binned_accumulator<F>{}, binned_plus{}, form,
                               stream);
}

// reproducible_sum through dispatch_reduce; Pick names a kernel as there (tests, timing).
template <kernel_pick Pick = kernel_pick::by_size, class T>
cudaError_t dispatch_reproducible_sum(void* d_temp, size_t& temp_bytes, const T* d_in, binned_float_t<T>* d_out,
                                      uint64_t n, cudaStream_t stream) {
  return dispatch_binned<Pick>(d_temp, temp_bytes, d_in, d_out, n, binned_sum_form<binned_float_t<T>>{}, stream);
}

}  // namespace detail

// Sums d_in[0, n) into *d_out, reproducibly (see above).
template <class T>
cudaError_t reproducible_sum(void* d_temp, size_t& temp_bytes, const T* d_in, reproducible_sum_t<T>* d_out, uint64_t n,
                             cudaStream_t stream = 0) {
  return detail::dispatch_reproducible_sum(d_temp, temp_bytes, d_in, d_out, n, stream);
}

}  // namespace warpfold
