#pragma once
// warpfold::reduce_axis — x.sum(dim=k) of a tensor: a tensor seen as [outer][axis][inner],
// reduced over its middle extent into [outer][inner].
//
//   const auto shape = warpfold::axis_shape::contiguous(rows, cols, 1);  // x.sum(dim=1), x[rows][cols]
//   size_t bytes = 0;
//   warpfold::reduce_axis(nullptr, bytes, d_x, d_out, shape, warpfold::plus{}, 0.0f);  // query
//   cudaMalloc(&d_temp, bytes);
//   warpfold::reduce_axis(d_temp, bytes, d_x, d_out, shape, warpfold::plus{}, 0.0f, stream);
//
// d_out[o·inner + i] = op(init, x[o][0][i], x[o][1][i], …): the output is [outer][inner],
// contiguous. Element (o, a, i) is d_in[o·outer_stride + a·axis_stride + i·inner_stride]: each
// extent has its own element stride (which may be negative), so transposed and sliced views need
// no copy:
//   x.sum(dim=1) of a row-major [R][C]: outer = R, axis = C, inner = 1;
//   x.sum(dim=0):                       outer = 1, axis = R, inner = C;
//   x.T.sum(dim=0):                     outer = 1, axis = C (stride 1), inner = R (stride C);
//   x[:, ::2].sum(dim=1):               outer = R (stride C), axis = ceil(C / 2) (stride 2), inner = 1.
// x.sum(dim=k) of a contiguous N-D tensor is contiguous_axis_shape(sizes, rank, k, k); several
// adjacent dims reduced at once merge into one extent (contiguous_axis_shape(sizes, rank, j, k)).
//
// * Types, operators, the accumulator (the type of init), NaN and infinities: as reduce (reduce.cuh).
//   argmin_axis / argmax_axis give each output's extreme element and its position along the axis.
// * A zero extent is valid: axis = 0 gives init in every output ({T{}, 0} for argmin/argmax);
//   outer = 0 or inner = 0 writes nothing.
// * Reproducible: each output's fold order depends on the shape, the strides, the alignment and
//   the device only: bitwise the same results run to run.
// * Contiguous layouts run at the memory limit (docs/segmented.md). Any other strides are read
//   where they lie, never copied.
// * Temp storage: its size depends on the types, the operator, the device and the shape; it needs
//   no initialisation. Asynchronous on `stream`, one kernel launch (in a CUDA graph capture, a
//   memset node before it). A misuse is reported as for reduce (last_combine_status).
//
// Errors are returned as cudaError_t: cudaErrorInvalidValue for a shape whose element counts or
// offsets (extent - 1 times |stride|, summed, in bytes) do not fit in 64 bits, a null d_out with
// outputs, a null d_in with elements to read, or too little temp storage;
// cudaErrorMisalignedAddress for a pointer not aligned to its type or temp storage not aligned to
// 8 bytes; and any launch error.

#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/detail/segmented_dispatch.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>
#include <warpfold/reduce.cuh>

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace warpfold {

// Reduces every [o][·][i] line of d_in along the axis with `op`, from `init`, into d_out[o·inner + i].
template <class T, class Acc, class Op>
cudaError_t reduce_axis(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, const axis_shape& shape, Op op,
                        Acc init, cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_axis(d_temp, temp_bytes, d_in, d_out, shape, init, op, detail::convert<identity>{}, stream);
}

// The smallest element of every line and its position along the axis (the first among equals).
template <class T>
cudaError_t argmin_axis(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, const axis_shape& shape,
                        cudaStream_t stream = 0) {
  return detail::dispatch_axis(d_temp, temp_bytes, d_in, d_out, shape, key_value<T>{T{}, 0}, arg_min{},
                               detail::with_index{}, stream);
}

// The largest element of every line and its position along the axis (the first among equals).
template <class T>
cudaError_t argmax_axis(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, const axis_shape& shape,
                        cudaStream_t stream = 0) {
  return detail::dispatch_axis(d_temp, temp_bytes, d_in, d_out, shape, key_value<T>{T{}, 0}, arg_max{},
                               detail::with_index{}, stream);
}

}  // namespace warpfold
