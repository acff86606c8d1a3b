#pragma once
// Host side of warpfold::reduce: argument checks, the kernel's capacity on the device, the
// temp-storage size, the choice of kernel, the plan and the launch.

#include <warpfold/detail/kernel_launch.cuh>
#include <warpfold/detail/reduce_forms.cuh>
#include <warpfold/detail/reduce_kernel.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/detail/reduce_policy.hpp>
#include <warpfold/error.hpp>
#include <warpfold/ops.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>

namespace warpfold::detail {

// This process's salt for the partials' tags (call_key): random, drawn once, so that tagged words
// another process left in memory do not match this one's.
inline unsigned long long process_salt() {
  static const unsigned long long salt = [] {
    std::random_device device;
    const unsigned long long x = (uint64_t(device()) << 32) ^ device();
    return mix64(x ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  }();
  return salt;
}

// The number of this call among the process's reduces (from 1): each call's partials carry their
// own tag. One counter for the whole program (an inline function's static).
inline unsigned long long next_call() {
  static std::atomic<unsigned long long> calls{0};
  return calls.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The bound on the combiner's wait for a partial: 10 s, or WARPFOLD_COMBINE_TIMEOUT_MS
// milliseconds (read once; tests that provoke a stalled combine shorten it).
inline unsigned long long combine_timeout_ns() {
  static const unsigned long long ns = [] {
    const char* text = std::getenv("WARPFOLD_COMBINE_TIMEOUT_MS");
    char* end = nullptr;
    const unsigned long long ms = text ? std::strtoull(text, &end, 10) : 0;
    return (text && end != text && *end == '\0' && ms > 0 ? ms : 10000ull) * 1000000ull;
  }();
  return ns;
}

// Which kernel a reduce launches: chosen by size (every public entry point), or named (tests and
// the bench's probes). A named bulk kernel runs as the wide one where the device's code has no
// bulk copies.
enum class kernel_pick { by_size, narrow, wide, bulk };

template <kernel_kind Kind, class T, class Acc, class Out, class Op, class Form>
inline constexpr auto single_pass_kernel = &single_pass<reduce_params<T, Acc, Out, Op, Form>, Kind>;

// A kernel's code on one device: the architecture it was compiled for (its PTX's, so that code
// compiled for an older architecture and run on a newer device keeps the older policy) and the
// blocks of it that can be resident at once. blocks = 0: the kernel does not run there (a bulk
// kernel compiled without bulk copies).
struct kernel_capacity {
  unsigned arch = 0;
  unsigned blocks = 0;
};

// SMs × blocks of Kernel resident per SM on `device` with `threads` threads and `shared_bytes` of
// dynamic shared memory (its limit raised first where above the default), at most `budget` per SM
// where that is not 0.
template <auto Kernel>
cudaError_t resident_blocks(int device, unsigned threads, unsigned shared_bytes, unsigned budget, unsigned& blocks) {
  if (cudaError_t rc = raise_shared_limit<Kernel>(shared_bytes); rc != cudaSuccess) return rc;
  int sms = 0, per_sm = 0;
  if (cudaError_t rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); rc != cudaSuccess) return rc;
  if (cudaError_t rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, int(threads), shared_bytes);
      rc != cudaSuccess) {
    return rc;
  }
  if (budget != 0 && unsigned(per_sm) > budget) per_sm = int(budget);
  blocks = unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

// The architecture Kernel's code was compiled for: its PTX's, so that code compiled for an older
// architecture and run on a newer device keeps the older policy (and no bulk copies).
template <auto Kernel>
cudaError_t compiled_arch(unsigned& arch) {
  cudaFuncAttributes attributes{};
  if (cudaError_t rc = cudaFuncGetAttributes(&attributes, Kernel); rc != cudaSuccess) return rc;
  arch = unsigned(attributes.ptxVersion) * 10;
  return cudaSuccess;
}

// The capacity of kernel Kind of a reduce of T into Acc on `device`, asked once per device: its
// resident blocks, at most the blocks per SM of its register budget where it has one, so that the
// grids (and so the fold orders) are those the budget was tuned with; none for a bulk kernel
// compiled without bulk copies.
template <kernel_kind Kind, class T, class Acc, class Out, class Op, class Form>
cudaError_t capacity_of(int device, kernel_capacity& capacity) {
  constexpr auto kernel = single_pass_kernel<Kind, T, Acc, Out, Op, Form>;
  static std::atomic<unsigned long long> cache[kMaxDevices] = {};  // arch << 32 | blocks (arch ≥ 750), 0 not asked
  if (device < kMaxDevices) {
    const unsigned long long known = cache[device].load(std::memory_order_relaxed);
    if (known != 0) {
      capacity = {unsigned(known >> 32), unsigned(known)};
      return cudaSuccess;
    }
  }
  if (cudaError_t rc = compiled_arch<kernel>(capacity.arch); rc != cudaSuccess) return rc;
  const reduce_policy policy = policy_for_arch(capacity.arch);
  capacity.blocks = 0;
  if (Kind != kernel_kind::bulk || policy.bulk_stages > 0) {
    const unsigned shared_bytes = Kind == kernel_kind::bulk ? policy.bulk_shared_bytes() : 0;
    if (cudaError_t rc = resident_blocks<kernel>(device, policy.threads, shared_bytes,
                                                 min_blocks_per_sm<T, Acc>(Kind, capacity.arch), capacity.blocks);
        rc != cudaSuccess) {
      return rc;
    }
  }
  if (device < kMaxDevices) cache[device].store((uint64_t(capacity.arch) << 32) | capacity.blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

// The capacities of the kernels a pick may launch (0 blocks for those it may not).
struct reduce_capacities {
  kernel_capacity narrow, wide, bulk;
  unsigned max_blocks() const { return std::max({narrow.blocks, wide.blocks, bulk.blocks}); }
};

template <kernel_pick Pick, class T, class Acc, class Out, class Op, class Form>
cudaError_t capacities_of(int device, reduce_capacities& c) {
  constexpr bool kMayTakeWide =
      Pick == kernel_pick::wide || Pick == kernel_pick::bulk || (Pick == kernel_pick::by_size && has_wide_tiles<T, Acc>);
  constexpr bool kMayTakeBulk = Pick == kernel_pick::bulk || (Pick == kernel_pick::by_size && has_wide_tiles<T, Acc>);
  if (cudaError_t rc = capacity_of<kernel_kind::narrow, T, Acc, Out, Op, Form>(device, c.narrow); rc != cudaSuccess) {
    return rc;
  }
  if constexpr (kMayTakeWide) {
    if (cudaError_t rc = capacity_of<kernel_kind::wide, T, Acc, Out, Op, Form>(device, c.wide); rc != cudaSuccess) {
      return rc;
    }
  }
  if constexpr (kMayTakeBulk) {
    if (cudaError_t rc = capacity_of<kernel_kind::bulk, T, Acc, Out, Op, Form>(device, c.bulk); rc != cudaSuccess) {
      return rc;
    }
  }
  return cudaSuccess;
}

// The kernel a pick launches for n items: a named one as named (bulk as wide where the device's
// code has no bulk copies), else by size under the policy of the device's code.
template <kernel_pick Pick, class T, class Acc>
kernel_kind choose_kernel(uint64_t n, const reduce_capacities& c) {
  if constexpr (Pick == kernel_pick::narrow) return kernel_kind::narrow;
  else if constexpr (Pick == kernel_pick::wide) return kernel_kind::wide;
  else if constexpr (Pick == kernel_pick::bulk) return c.bulk.blocks > 0 ? kernel_kind::bulk : kernel_kind::wide;
  else {
    const reduce_policy policy = policy_for_arch(c.narrow.arch);
    if (c.bulk.blocks > 0 && takes_bulk_tiles<T, Acc>(n, policy)) return kernel_kind::bulk;
    if (takes_wide_tiles<T, Acc>(n, policy)) return kernel_kind::wide;
    return kernel_kind::narrow;
  }
}

// Launches kernel Kind, whose capacity is `capacity`.
template <kernel_kind Kind, class T, class Acc, class Out, class Op, class Form>
cudaError_t launch_reduce(const current_device& current, const kernel_capacity& capacity, void* d_temp, const T* d_in,
                          Out* d_out, uint64_t n, Acc init, Op op, Form form, cudaStream_t stream) {
  using params_t = reduce_params<T, Acc, Out, Op, Form>;
  constexpr auto kernel = single_pass_kernel<Kind, T, Acc, Out, Op, Form>;
  const reduce_policy policy = policy_for_arch(capacity.arch);
  bool captured = false;
  if (cudaError_t rc = stream_is_capturing(stream, captured); rc != cudaSuccess) return rc;
  params_t p{d_in,  n,  {}, static_cast<unsigned long long*>(d_temp), d_out, init, op, form,
             call_key(next_call(), process_salt(), captured), combine_timeout_ns()};
  // Just past one partial per combiner thread, the grid halves where partials are small.
  const unsigned shaped_up_to = sizeof(Acc) <= 8 ? policy.threads : 0;
  p.plan = plan_reduce(n, reinterpret_cast<uintptr_t>(d_in), sizeof(T), vector_elements<T>, policy.threads,
                       capacity.blocks, shaped_up_to, policy.vectors(Kind), policy.single_block_max_tiles);
  // A captured reduce is replayed with its tag frozen: a memset node clears its partials' words
  // before each replay, so that none of an earlier replay's is left to match (combine.cuh).
  if (captured && p.plan.grid > 1) {
    const size_t words = size_t(p.plan.grid) * kPartialWords<Acc>;
    if (cudaError_t rc = cudaMemsetAsync(p.temp + kHeaderWords, 0, words * sizeof(unsigned long long), stream);
        rc != cudaSuccess) {
      return rc;
    }
  }
  // Not <<<>>>: launch_kernel returns this launch's own error, where cudaGetLastError would also
  // report (and clear) an earlier call's, and it spends less host time (kernel_launch.cuh).
  void* args[] = {&p};
  const unsigned shared_bytes = Kind == kernel_kind::bulk ? policy.bulk_shared_bytes() : 0;
  return launch_kernel<kernel>(current.device, dim3(p.plan.grid), dim3(policy.threads), args, stream, shared_bytes,
                               current.context_id);
}

template <kernel_pick Pick = kernel_pick::by_size, class T, class Acc, class Out, class Op, class Form>
cudaError_t dispatch_reduce(void* d_temp, size_t& temp_bytes, const T* d_in, Out* d_out, uint64_t n, Acc init, Op op,
                            Form form, cudaStream_t stream) {
  static_assert(Pick == kernel_pick::by_size || Pick == kernel_pick::narrow || has_wide_loads<T>,
                "the wide and bulk kernels read types with a vector path of at least two elements");
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
  reduce_capacities capacities;
  if (cudaError_t rc = capacities_of<Pick, T, Acc, Out, Op, Form>(current.device, capacities); rc != cudaSuccess) {
    return rc;
  }
  const size_t needed = tagged_partial_bytes<Acc>(capacities.max_blocks());
  if (d_temp == nullptr) {
    temp_bytes = needed;
    return cudaSuccess;
  }
  if (temp_bytes < needed) return cudaErrorInvalidValue;

  switch (choose_kernel<Pick, T, Acc>(n, capacities)) {
    case kernel_kind::bulk:
      if constexpr (Pick == kernel_pick::bulk || (Pick == kernel_pick::by_size && has_wide_tiles<T, Acc>)) {
        return launch_reduce<kernel_kind::bulk>(current, capacities.bulk, d_temp, d_in, d_out, n, init, op, form,
                                                stream);
      }
      break;
    case kernel_kind::wide:
      if constexpr (Pick != kernel_pick::narrow && (Pick != kernel_pick::by_size || has_wide_tiles<T, Acc>)) {
        return launch_reduce<kernel_kind::wide>(current, capacities.wide, d_temp, d_in, d_out, n, init, op, form,
                                                stream);
      }
      break;
    case kernel_kind::narrow: break;
  }
  return launch_reduce<kernel_kind::narrow>(current, capacities.narrow, d_temp, d_in, d_out, n, init, op, form, stream);
}

// Allocates temp storage and an output slot on the stream, runs `call(temp, bytes, out)`, copies
// the result back and frees; throws warpfold::cuda_error on any failure. The temp storage is
// written once first: the combine polls words before the other blocks store them, which
// compute-sanitizer's initcheck reports as reads of memory nothing wrote (their bytes never
// decide a result), and a caller of this function has no other way to keep them out of its run.
template <class Acc, class Call>
Acc run_to_value(cudaStream_t stream, Call&& call) {
  size_t bytes = 0;
  WARPFOLD_CUDA_CHECK(call(nullptr, bytes, static_cast<Acc*>(nullptr)));
  void* temp = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMallocAsync(&temp, bytes + sizeof(Acc) + alignof(Acc), stream));
  Acc* out = reinterpret_cast<Acc*>((reinterpret_cast<uintptr_t>(temp) + bytes + alignof(Acc) - 1) / alignof(Acc) *
                                    alignof(Acc));
  Acc result{};
  cudaError_t rc = cudaMemsetAsync(temp, 0, bytes, stream);
  if (rc == cudaSuccess) rc = call(temp, bytes, out);
  if (rc == cudaSuccess) rc = cudaMemcpyAsync(&result, out, sizeof(Acc), cudaMemcpyDeviceToHost, stream);
  const cudaError_t free_rc = cudaFreeAsync(temp, stream);
  const cudaError_t sync_rc = cudaStreamSynchronize(stream);
  WARPFOLD_CUDA_CHECK(rc);
  WARPFOLD_CUDA_CHECK(free_rc);
  WARPFOLD_CUDA_CHECK(sync_rc);
  return result;
}

}  // namespace warpfold::detail
