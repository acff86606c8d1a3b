#pragma once
// warpfold::reduce — a device-wide reduce for any type, associative operator, size and alignment.
//
//   size_t bytes = 0;
//   warpfold::reduce(nullptr, bytes, d_in, d_out, n, warpfold::plus{}, int64_t{0});  // query
//   cudaMalloc(&d_temp, bytes);
//   warpfold::reduce(d_temp, bytes, d_in, d_out, n, warpfold::plus{}, int64_t{0}, stream);
//
// Every entry point takes its arguments in CUB's order: temp storage, input, output, number of
// items, then the operator (and transform), the initial value and the stream.
//
// * The accumulator type is the type of `init` (as with std::reduce): int8 data summed with an
//   int64_t init accumulates in 64 bits; *d_out has that type. Elements are converted to it as
//   they are loaded. It must be trivially copyable and at most 64 bytes (kMaxAccumulatorBytes):
//   partials travel between blocks as raw bytes in temp storage; a static_assert says so.
// * The operator must be associative and commutative (elements are combined in an interleaved
//   order) and callable on the device as `Acc op(Acc, Acc)`. No identity element is needed.
// * n is 64-bit; n = 0 writes init. d_in needs only the alignment of its type (any offset into
//   an array works: a scalar head and tail surround 16-byte vector loads; types whose alignment
//   is below their size, such as a struct of two floats, are read one element at a time).
// * Temp storage: its size depends on the input, accumulator and operator types and on the
//   device, never on n, so one query serves every size on a device. It needs no initialisation
//   (cudaMalloc's 256-byte alignment is more than its 8) and may be reused by the next call on
//   the same stream; as with CUB, two reduces running at once need two. (compute-sanitizer's
//   initcheck reports the combine's polls of words that no call has written yet, though no
//   result depends on them: to run clean under it, write new temp storage once, with any bytes;
//   reduce_value does.)
// * Asynchronous on `stream`, one kernel launch (in a CUDA graph capture, a memset node before it),
//   no host synchronisation.
// * Reproducible: for a given device, n and pointer alignment the fold order is fixed, so
//   floating-point results are bitwise identical run to run. Each block stores its partial in
//   temp storage as words tagged for this call, and the grid's last block polls and folds them
//   (detail/combine.cuh): whatever the temp storage held before, no word of this process's
//   earlier calls (within 2^31 calls) can be taken for this one's; unrelated bytes match a tag
//   with probability 2^-32 per word. Captured into a CUDA graph, a reduce adds a small memset
//   node before its kernel, which clears its partials' words before each replay.
// * A misuse ends instead of hanging: see last_combine_status.
// * Concurrency: reduces share no state: any number may run at once, on any streams, inside CUDA
//   graphs or not, each with its own temp storage. The stream must belong to the current device.
// * The launch: through the driver's cuLaunchKernel with a function handle cached per device
//   (found through the runtime; nothing to link beyond cudart), or cudaLaunchKernel where the
//   handle does not apply (detail/kernel_launch.cuh). Compiled with --default-stream per-thread,
//   stream 0 is the per-thread stream, as for the runtime (compile every file of a program that
//   calls warpfold with the same setting).
// * Devices: compute capability 7.5 (Turing) and newer; Hopper's bulk copies are compiled for
//   9.0 and up only, and other devices take the same kernels without them.
//
// Errors are returned as cudaError_t: cudaErrorInvalidValue for a null pointer (d_in with n > 0,
// d_out) or too little temp storage, cudaErrorMisalignedAddress for d_in or d_out not aligned to
// its type or temp storage not aligned to 8 bytes, and any launch error. The pointer and
// alignment errors are found before any device is asked; the temp size needed depends on the
// device, so it is checked after the device query (whose own error, such as no device, comes
// first). reduce_value() throws warpfold::cuda_error instead.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
#error "warpfold needs compute capability 7.5 (Turing) or newer: remove the older architectures from CMAKE_CUDA_ARCHITECTURES (or nvcc -arch)"
#endif

#include <warpfold/detail/reduce_dispatch.cuh>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>
#include <type_traits>

namespace warpfold {

// The largest accumulator: each block's partial travels through temp storage as one tagged
// 64-bit word per 4 bytes (detail/combine.cuh), 16 words at this size, which the tests cover.
inline constexpr size_t kMaxAccumulatorBytes = 64;

namespace detail {
// Instantiated by every entry point: a clear message for an accumulator the combine cannot carry.
template <class Acc>
struct accepts_accumulator {
  static_assert(std::is_trivially_copyable_v<Acc>,
                "warpfold: the accumulator type (the type of init) must be trivially copyable: partials travel "
                "between blocks as raw bytes");
  static_assert(sizeof(Acc) <= kMaxAccumulatorBytes,
                "warpfold: the accumulator type (the type of init) may be at most 64 bytes "
                "(warpfold::kMaxAccumulatorBytes)");
  static constexpr bool value = true;
};
}  // namespace detail

// Reduces d_in[0, n) with `op`, starting from `init`, into *d_out.
template <class T, class Acc, class Op>
cudaError_t reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Op op, Acc init,
                   cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, init, op, detail::convert<identity>{}, stream);
}

// Reduces transform(d_in[i]) (converted to Acc) with `op`: the transform is fused into the load,
// so sum of squares costs one pass over the data. A transform of the caller's receives the
// element itself, as in CUB; the built-in ones (warpfold::square, warpfold::absolute: ops.cuh)
// receive it converted to Acc and compute there, so the squares of int32 data summed into int64
// cannot overflow.
template <class T, class Acc, class Op, class Transform>
cudaError_t transform_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Op op,
                             Transform transform, Acc init, cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<Acc>::value);
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, init, op, detail::convert<Transform>{transform},
                                 stream);
}

// The smallest element and the first index holding it (NaN counts as smallest; see ops.cuh).
// n = 0 writes {T{}, 0}: index n, "past the end", as std::min_element would return.
template <class T>
cudaError_t argmin(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, uint64_t n,
                    cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<key_value<T>>::value);
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, key_value<T>{T{}, 0}, arg_min{},
                                 detail::with_index{}, stream);
}

// The largest element and the first index holding it (NaN counts as largest).
template <class T>
cudaError_t argmax(void* d_temp, size_t& temp_bytes, const T* d_in, key_value<T>* d_out, uint64_t n,
                    cudaStream_t stream = 0) {
  static_assert(detail::accepts_accumulator<key_value<T>>::value);
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, key_value<T>{T{}, 0}, arg_max{},
                                 detail::with_index{}, stream);
}

// Sum with Neumaier compensation in the accumulator type Acc (float or double): the rounding
// error no longer grows with n; costs the same memory traffic as a plain sum.
template <class T, class Acc>
cudaError_t compensated_sum(void* d_temp, size_t& temp_bytes, const T* d_in, Acc* d_out, uint64_t n, Acc init,
                            cudaStream_t stream = 0) {
  static_assert(std::is_floating_point_v<Acc>, "warpfold::compensated_sum: the accumulator (init) is float or double");
  static_assert(detail::accepts_accumulator<compensated<Acc>>::value);
  return detail::dispatch_reduce(d_temp, temp_bytes, d_in, d_out, n, compensated<Acc>{init, Acc(0)},
                                 compensated_plus{}, detail::compensate{}, stream);
}

// Whether the last reduce that combined partials in d_temp gave up waiting for one: cudaSuccess
// if not, cudaErrorLaunchTimeout if it did (a misuse: the temp storage shared by two reduces at
// once, or overwritten or freed while the reduce ran). Such a reduce ends after about 10 s (or
// WARPFOLD_COMBINE_TIMEOUT_MS) instead of hanging, leaves the CUDA context usable, and writes a
// result that cannot pass for a number: NaN for floating-point outputs, every byte 0xff
// otherwise (-1, the largest unsigned value, argmin/argmax index 2^64 - 1). Compiled with
// WARPFOLD_TRAP_ON_STALLED_COMBINE defined, it traps instead (the context is lost). Reads two
// words of d_temp after the work queued on `stream`, and waits for them.
inline cudaError_t last_combine_status(const void* d_temp, cudaStream_t stream = 0) {
  if (d_temp == nullptr) return cudaErrorInvalidValue;
  if (reinterpret_cast<uintptr_t>(d_temp) % 8 != 0) return cudaErrorMisalignedAddress;
  unsigned long long header[detail::kHeaderWords] = {};  // epoch, status
  if (cudaError_t rc = cudaMemcpyAsync(header, d_temp, sizeof(header), cudaMemcpyDeviceToHost, stream);
      rc != cudaSuccess) {
    return rc;
  }
  if (cudaError_t rc = cudaStreamSynchronize(stream); rc != cudaSuccess) return rc;
  // A stalled combine records the epoch it found and advances it: the last one stalled when the
  // status names the epoch just before the current one.
  const bool stalled = header[1] == (detail::kStalledCombine | ((header[0] - 1) & ~detail::kStalledCombine));
  return stalled ? cudaErrorLaunchTimeout : cudaSuccess;
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
