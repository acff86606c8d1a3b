#pragma once
// warpfold::reduce — a device-wide reduce for any type, associative operator, size and alignment.
//
//   size_t bytes = 0;
//   warpfold::reduce(nullptr, bytes, d_in, d_out, n, warpfold::plus{}, int64_t{0});  // query
//   cudaMalloc(&d_temp, bytes);
//   warpfold::reduce(d_temp, bytes, d_in, d_out, n, warpfold::plus{}, int64_t{0}, stream);
//
// * The accumulator type is the type of `init` (as with std::reduce): int8 data summed with an
//   int64_t init accumulates in 64 bits; *d_out has that type. Elements are converted to it as
//   they are loaded.
// * The operator must be associative and commutative (elements are combined in an interleaved
//   order) and callable on the device as `Acc op(Acc, Acc)`. No identity element is needed.
// * n is 64-bit; n = 0 writes init. d_in needs only the alignment of its type (any offset into
//   an array works: a scalar head and tail surround 16-byte vector loads; types whose alignment
//   is below their size, such as a struct of two floats, are read one element at a time).
// * Asynchronous on `stream`, one kernel launch, no host synchronisation. Temp storage needs no
//   initialisation (cudaMalloc's 256-byte alignment is more than its 8) and may be reused by the
//   next call on the same stream; as with CUB, two reduces running at once need two.
// * Reproducible: for a given device, n and pointer alignment the fold order is fixed, so
//   floating-point results are bitwise identical run to run. Each block stores its partial in
//   temp storage as words tagged for this reduce (from an epoch the temp storage carries from
//   one reduce to the next), and the grid's last block polls and folds them
//   (detail/reduce_kernel.cuh). warpfold::any_order is accepted, and changes
//   nothing today (see below).
// * Concurrency: reduces share no state: any number may run at once, on any streams, inside CUDA
//   graphs or not, each with its own temp storage. The stream must belong to the current device.
// * The launch: through the driver's cuLaunchKernel with a function handle cached per device
//   (found through the runtime; nothing to link beyond cudart), or cudaLaunchKernel where the
//   handle does not apply (detail/kernel_launch.cuh). Compiled with --default-stream per-thread,
//   stream 0 is the per-thread stream, as for the runtime (compile every file of a program that
//   calls warpfold with the same setting).
//
// Errors are returned as cudaError_t: cudaErrorInvalidValue for a null pointer (d_in with n > 0,
// d_out) or too little temp storage, cudaErrorMisalignedAddress for d_in or d_out not aligned to
// its type or temp storage not aligned to 8 bytes, and any launch error. The pointer and
// alignment errors are found before any device is asked; the temp size needed depends on the
// device, so it is checked after the device query (whose own error, such as no device, comes
// first). reduce_value() throws warpfold::cuda_error instead.

#include <warpfold/detail/reduce_dispatch.cuh>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>

#include <cstdint>

namespace warpfold {

// Reduces d_in[0, n) with `op`, starting from `init`, into *d_out.
template <class T, class Acc, class Op>
cudaError_t reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Op op, Acc init,
                   cudaStream_t stream = 0) {
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, init, op, detail::convert<identity>{}, stream);
}

// The opt-in permission for a combine in any order, selected by passing warpfold::any_order last
// (float and double sums may then differ in their last bits run to run). An earlier combine
// used it to add float and double partials with atomics; the ordered combine measured as fast
// (bench/NOTES.md), so every reduce takes the ordered one today and results stay reproducible.
struct any_order_t {
  explicit constexpr any_order_t() = default;
};
inline constexpr any_order_t any_order{};

template <class T, class Acc, class Op>
cudaError_t reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Op op, Acc init,
                   cudaStream_t stream, any_order_t) {
  return reduce(d_temp, temp_bytes, d_in, d_out, n, op, init, stream);
}

// Reduces transform(d_in[i]) (converted to Acc) with `op`: the transform is fused into the load,
// so sum of squares costs one pass over the data.
template <class T, class Acc, class Op, class Transform>
cudaError_t transform_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Acc init,
                             Op op, Transform transform, cudaStream_t stream = 0) {
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, init, op, detail::convert<Transform>{transform},
                                 stream);
}

// The smallest element and the first index holding it (NaN counts as smallest; see ops.cuh).
// n = 0 writes {T{}, 0}: index n, "past the end", as std::min_element would return.
template <class T>
cudaError_t argmin(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, uint64_t n,
                    cudaStream_t stream = 0) {
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, key_value<T>{T{}, 0}, arg_min{},
                                 detail::with_index{}, stream);
}

// The largest element and the first index holding it (NaN counts as largest).
template <class T>
cudaError_t argmax(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, uint64_t n,
                    cudaStream_t stream = 0) {
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, key_value<T>{T{}, 0}, arg_max{},
                                 detail::with_index{}, stream);
}

// Sum with Neumaier compensation in the accumulator type Acc (float or double): the rounding
// error no longer grows with n; costs the same memory traffic as a plain sum.
template <class T, class Acc>
cudaError_t compensated_sum(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Acc init,
                            cudaStream_t stream = 0) {
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, compensated<Acc>{init, Acc(0)},
                                 compensated_plus{}, detail::compensate{}, stream);
}

// Convenience: allocates temp storage on the stream, reduces, waits and returns the value.
// Throws warpfold::cuda_error on failure.
template <class T, class Acc, class Op>
Acc reduce_value(const T* d_in, uint64_t n, Op op, Acc init, cudaStream_t stream = 0) {
  return detail::run_to_value<Acc>(stream, [&](void* temp, size_t& bytes, Acc* out) {
    return reduce(temp, bytes, d_in, out, n, op, init, stream);
  });
}

}  // namespace warpfold
