#pragma once
// Host side of warpfold::reduce: argument checks, temp-storage size, grid plan and launch.

#include <warpfold/detail/kernel_launch.cuh>
#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/detail/reduce_kernel.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>

namespace warpfold::detail {

// --- launch --------------------------------------------------------------------------------

// This process's salt for the partials' tags (launch_tag): random, drawn once, so that tagged
// words another process left in memory do not match this one's.
inline unsigned long long process_salt() {
  static const unsigned long long salt = [] {
    std::random_device device;
    const unsigned long long x = (uint64_t(device()) << 32) ^ device();
    return mix64(x ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  }();
  return salt;
}

// The kernel a reduce launches with InFlight vectors per thread (the bulk kernel where Bulk): one
// definition for the occupancy query and the launch.
template <unsigned InFlight, bool Bulk, class T, class Acc, class Out, class Op, class Form>
inline constexpr auto single_pass_kernel = &single_pass<reduce_params<T, Acc, Out, Op, Form>, InFlight, Bulk>;

// SMs × resident blocks of Kernel on the current device (at most max_per_sm per SM, where that is
// not 0), asked once per device and kernel. (A template on the kernel itself, not its type:
// kernels of one signature, like the narrow and wide ones, may differ in registers and so in
// occupancy.)
// `shared_bytes`: the dynamic shared memory it is launched with.
template <auto Kernel>
cudaError_t max_resident_blocks(int device, unsigned& blocks, unsigned max_per_sm = 0, unsigned shared_bytes = 0) {
  static std::atomic<unsigned> cache[kMaxDevices] = {};
  if (device < kMaxDevices && (blocks = cache[device].load(std::memory_order_relaxed)) != 0) return cudaSuccess;
  int sms = 0, per_sm = 0;
  if (cudaError_t rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); rc != cudaSuccess) return rc;
  if (cudaError_t rc =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, reduce_policy::threads, shared_bytes);
      rc != cudaSuccess) {
    return rc;
  }
  if (max_per_sm != 0 && unsigned(per_sm) > max_per_sm) per_sm = int(max_per_sm);
  blocks = unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 1);
  if (device < kMaxDevices) cache[device].store(blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

// The most blocks a reduce of T into Acc launches: the resident capacity of its kernel, so that
// every block of a grid can be resident at once (the combine relies on it: kPartialWords).
// Kernels with a register budget hold at most the blocks per SM it was set for: ptxas may fit
// them in fewer registers, but the grids (and so the fold orders) and the loads in flight per SM
// stay those the budget was measured with (bench/NOTES.md).
template <unsigned InFlight, class T, class Acc, class Out, class Op, class Form>
cudaError_t max_reduce_blocks(int device, unsigned& blocks) {
  constexpr auto kernel = single_pass_kernel<InFlight, false, T, Acc, Out, Op, Form>;
  return max_resident_blocks<kernel>(device, blocks, min_blocks_per_sm<T, Acc, InFlight, false>);
}

// The resident capacity of a kernel that reads by bulk copies (with its dynamic shared memory,
// whose limit it raises first: the occupancy query counted one block per SM without, two with);
// 0 blocks where the kernel's code for this device has no bulk copies (built for compute
// capability below 9.0: bulk::kCompiled), so that the caller takes the wide kernel instead. Asked
// once per kernel and device. (launch_kernel raises the limit of the stub it launches too:
// raise_shared_limit.)
template <auto Kernel>
cudaError_t max_bulk_blocks(int device, unsigned& blocks, unsigned max_per_sm) {
  static std::atomic<int> runs_bulk_copies[kMaxDevices] = {};  // 0 not asked, 1 yes, 2 no
  int known = device < kMaxDevices ? runs_bulk_copies[device].load(std::memory_order_relaxed) : 0;
  if (known == 0) {
    cudaFuncAttributes attributes{};
    if (cudaError_t rc = cudaFuncGetAttributes(&attributes, Kernel); rc != cudaSuccess) return rc;
    known = attributes.binaryVersion >= 90 ? 1 : 2;
    if (known == 1) {
      if (cudaError_t rc = raise_shared_limit<Kernel>(kBulkSharedBytes); rc != cudaSuccess) return rc;
    }
    if (device < kMaxDevices) runs_bulk_copies[device].store(known, std::memory_order_relaxed);
  }
  blocks = 0;
  if (known != 1) return cudaSuccess;
  return max_resident_blocks<Kernel>(device, blocks, max_per_sm, kBulkSharedBytes);
}

// The same as max_reduce_blocks for the bulk kernel.
template <class T, class Acc, class Out, class Op, class Form>
cudaError_t max_bulk_reduce_blocks(int device, unsigned& blocks) {
  constexpr unsigned kWide = reduce_policy::wide_vectors_in_flight;
  return max_bulk_blocks<single_pass_kernel<kWide, true, T, Acc, Out, Op, Form>>(
      device, blocks, min_blocks_per_sm<T, Acc, kWide, true>);
}

// Launches the kernel with InFlight vectors per thread (the bulk kernel where Bulk); max_blocks
// is its max_reduce_blocks (max_bulk_reduce_blocks).
template <unsigned InFlight, bool Bulk, class T, class Acc, class Out, class Op, class Form>
cudaError_t launch_reduce(const current_device& current, void* d_temp, const T* d_in, Out* d_out, uint64_t n, Acc init, Op op,
                          Form form, cudaStream_t stream, unsigned max_blocks) {
  using params_t = reduce_params<T, Acc, Out, Op, Form>;
  constexpr auto kernel = single_pass_kernel<InFlight, Bulk, T, Acc, Out, Op, Form>;
  params_t p{d_in, n, {}, static_cast<unsigned long long*>(d_temp), d_out, init, op, form, process_salt()};
  // Just past one partial per combiner thread (reduce_policy::threads blocks), the plan halves
  // the grid where partials are small: a second tile per block costs less than a second partial
  // per combiner thread there (bench/NOTES.md).
  constexpr unsigned kShapedUpTo = sizeof(Acc) <= 8 ? reduce_policy::threads : 0;
  p.plan = plan_reduce(n, reinterpret_cast<uintptr_t>(d_in), sizeof(T), vector_elements<T>, reduce_policy::threads,
                       max_blocks, kShapedUpTo, InFlight);
  // Not <<<>>>: launch_kernel returns this launch's own error, where cudaGetLastError would also
  // report (and clear) an earlier call's, and it spends less host time (kernel_launch.cuh).
  void* args[] = {&p};
  return launch_kernel<kernel>(current.device, dim3(p.plan.grid), dim3(reduce_policy::threads), args, stream,
                               Bulk ? kBulkSharedBytes : 0, current.context_id);
}

// InFlight = 0 picks the kernel by size (takes_bulk_tiles, takes_wide_tiles); tests and
// experiments may name one: InFlight alone the narrow or the wide kernel, with Bulk the bulk
// kernel (the wide one on a device or build without bulk copies).
template <unsigned InFlight = 0, bool Bulk = false, class T, class Acc, class Out, class Op, class Form>
cudaError_t dispatch_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, uint64_t n, Acc init, Op op,
                            Form form, cudaStream_t stream) {
  constexpr unsigned kNarrow = reduce_policy::vectors_in_flight;
  constexpr unsigned kWide = reduce_policy::wide_vectors_in_flight;
  static_assert(InFlight == 0 || InFlight == kNarrow || (InFlight == kWide && has_wide_tiles<T, Acc>),
                "InFlight names a kernel this reduce has");
  static_assert(!Bulk || InFlight == kWide, "the bulk kernel is named with the wide tiles");
  constexpr bool kMayTakeWide = has_wide_tiles<T, Acc> && InFlight != kNarrow;
  constexpr bool kMayTakeBulk = has_wide_tiles<T, Acc> && (InFlight == 0 || Bulk);
  // Pointers first: a bad argument is reported as such, with or without a device.
  if (d_temp != nullptr) {
    switch (check_reduce_arguments(d_temp, d_in, alignof(T), d_out, alignof(Out), n)) {
      case argument_problem::null_pointer: return cudaErrorInvalidValue;
      case argument_problem::misaligned: return cudaErrorMisalignedAddress;
      case argument_problem::none: break;
    }
  }
  // Temp storage: the tagged partials of whichever kernel launches more blocks.
  current_device current;
  if (cudaError_t rc = get_current_device(current); rc != cudaSuccess) return rc;
  const int device = current.device;
  unsigned narrow_blocks = 0, wide_blocks = 0;
  if (cudaError_t rc = max_reduce_blocks<kNarrow, T, Acc, Out, Op, Form>(device, narrow_blocks); rc != cudaSuccess) {
    return rc;
  }
  if constexpr (kMayTakeWide) {
    if (cudaError_t rc = max_reduce_blocks<kWide, T, Acc, Out, Op, Form>(device, wide_blocks); rc != cudaSuccess) {
      return rc;
    }
  }
  unsigned bulk_blocks = 0;
  if constexpr (kMayTakeBulk) {
    if (cudaError_t rc = max_bulk_reduce_blocks<T, Acc, Out, Op, Form>(device, bulk_blocks); rc != cudaSuccess) {
      return rc;
    }
  }
  const unsigned max_blocks = std::max({narrow_blocks, wide_blocks, bulk_blocks});
  const size_t needed = tagged_partial_bytes<Acc>(max_blocks);
  if (d_temp == nullptr) {
    temp_bytes = needed;
    return cudaSuccess;
  }
  if (temp_bytes < needed) return cudaErrorInvalidValue;

  if constexpr (kMayTakeBulk) {
    if (bulk_blocks > 0 && (Bulk || takes_bulk_tiles<T, Acc>(n)))
      return launch_reduce<kWide, true>(current, d_temp, d_in, d_out, n, init, op, form, stream, bulk_blocks);
  }
  if constexpr (kMayTakeWide) {
    if (InFlight == kWide || takes_wide_tiles<T, Acc>(n))
      return launch_reduce<kWide, false>(current, d_temp, d_in, d_out, n, init, op, form, stream, wide_blocks);
  }
  return launch_reduce<kNarrow, false>(current, d_temp, d_in, d_out, n, init, op, form, stream, narrow_blocks);
}

// Allocates temp storage and an output slot on the stream, runs `call(temp, bytes, out)`, copies
// the result back and frees; throws warpfold::cuda_error on any failure.
template <class Acc, class Call>
Acc run_to_value(cudaStream_t stream, Call&& call) {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(call(nullptr, bytes, static_cast<Acc*>(nullptr)));
  void* temp = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMallocAsync(&temp, bytes + sizeof(Acc) + alignof(Acc), stream));
  Acc* out = reinterpret_cast<Acc*>((reinterpret_cast<uintptr_t>(temp) + bytes + alignof(Acc) - 1) / alignof(Acc) *
                                    alignof(Acc));
  Acc result{};
  cudaError_t rc = call(temp, bytes, out);
  if (rc == cudaSuccess) rc = cudaMemcpyAsync(&result, out, sizeof(Acc), cudaMemcpyDeviceToHost, stream);
  const cudaError_t free_rc = cudaFreeAsync(temp, stream);
  const cudaError_t sync_rc = cudaStreamSynchronize(stream);
  WARPFOLD_CUDA_CHECK(rc);
  WARPFOLD_CUDA_CHECK(free_rc);
  WARPFOLD_CUDA_CHECK(sync_rc);
  return result;
}

}  // namespace warpfold::detail
