#pragma once
// Launching a kernel with less host time than cudaLaunchKernel.
//
// cudaLaunchKernel starts from the kernel's host address at every launch, and its host time grows
// with the kernel's mangled name. The driver's cuLaunchKernel, given a function handle found once,
// costs less per launch and nothing per character of the name (docs/design.md's decision record,
// rows L1 and L2).
//
// The driver's functions come through the runtime (cudaGetDriverEntryPointByVersion), so nothing
// links libcuda. A handle belongs to one context: it is looked up once per device, in the context
// current at that moment, and used only while that same context (by its never-reused ID) is
// current. Every other case takes cudaLaunchKernel: no entry points (a runtime older than 12.5),
// another context current (a driver-API context, or a device reset since), the handle not yet
// looked up by another thread, or a launch the driver refuses, whose error then comes back as
// the runtime's own code from the retry (a refused launch has launched nothing).

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <type_traits>

namespace warpfold::detail {

struct driver_functions {
  CUresult(CUDAAPI* launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void**, void**) = nullptr;
  CUresult(CUDAAPI* ctx_get_current)(CUcontext*) = nullptr;
  CUresult(CUDAAPI* ctx_get_id)(CUcontext, unsigned long long*) = nullptr;
  CUresult(CUDAAPI* stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult(CUDAAPI* launch_kernel_ex)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  bool complete() const { return launch_kernel && ctx_get_current && ctx_get_id; }
};

// Looked up once per process.
inline const driver_functions& driver() {
  static const driver_functions functions = [] {
    driver_functions f;
#if CUDART_VERSION >= 12050
    auto find = [](const char* name, auto& pointer) {
      void* address = nullptr;
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion(name, &address, 12000, cudaEnableDefault, &found) == cudaSuccess &&
          found == cudaDriverEntryPointSuccess) {
        pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(address);
      }
    };
    find("cuLaunchKernel", f.launch_kernel);
    find("cuCtxGetCurrent", f.ctx_get_current);
    find("cuCtxGetId", f.ctx_get_id);
    find("cuStreamIsCapturing", f.stream_is_capturing);
    find("cuLaunchKernelEx", f.launch_kernel_ex);
#endif
    return f;
  }();
  return functions;
}

// The stream as the driver reads it: a null stream is the per-thread default stream where this
// code was compiled with --default-stream per-thread, as the runtime would read it.
inline CUstream driver_stream(cudaStream_t stream) {
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  if (stream == nullptr) return CU_STREAM_PER_THREAD;
#endif
  return stream;
}

// Whether work queued on `stream` now is being captured into a CUDA graph (to be replayed with
// the arguments it has now). Asked of the driver where its entry point was found: cheaper than
// the runtime's cudaStreamIsCapturing, which it falls back to.
inline cudaError_t stream_is_capturing(cudaStream_t stream, bool& capturing) {
  const driver_functions& d = driver();
  if (d.stream_is_capturing) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (d.stream_is_capturing(driver_stream(stream), &status) == CUDA_SUCCESS) {
      capturing = status != CU_STREAM_CAPTURE_STATUS_NONE;
      return cudaSuccess;
    }
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaError_t rc = cudaStreamIsCapturing(stream, &status); rc != cudaSuccess) return rc;
  capturing = status != cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

// Devices per process whose per-kernel caches (launch handles, resident blocks) are kept; a
// device beyond them works, without the caches.
inline constexpr int kMaxDevices = 64;

// Kernel's driver handle on one device, with the ID of the context it belongs to. `state`: 0 not
// looked up, 1 being looked up (by one thread; the others launch through the runtime meanwhile),
// 2 ready, 3 unavailable on this device.
struct launch_handle {
  std::atomic<int> state{0};
  unsigned long long context_id = 0;
  CUfunction function = nullptr;
};

template <auto Kernel>
inline launch_handle launch_handles[kMaxDevices];

// The current context's ID, or 0 where there is none.
inline unsigned long long current_context_id(const driver_functions& d) {
  CUcontext context = nullptr;
  unsigned long long id = 0;
  if (d.ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr) return 0;
  return d.ctx_get_id(context, &id) == CUDA_SUCCESS ? id : 0;
}

// The current device, as cudaGetDevice gives it, and the ID of the current context (0 where none
// is current on this thread yet, or without the driver's functions). A reduce needs both at every
// call: the device for its per-device caches, the context for its launch handle. Asking both of
// the runtime and the driver at every call shows in small reduces' times (decision record, row
// L3). So each thread remembers the device of the last context it saw: a context
// belongs to one device for its lifetime and its ID is never reused, so a current context whose
// ID was seen before is on the device seen with it, and one driver call answers both. (Since
// CUDA 12.0 cudaSetDevice makes the device's primary context current at once, and a context made
// current through the driver is the runtime's too: either way the ID changes with the device.)
struct current_device {
  int device = 0;
  unsigned long long context_id = 0;
};

inline cudaError_t get_current_device(current_device& current) {
  thread_local unsigned long long seen_context_id = 0;
  thread_local int seen_device = 0;
  const driver_functions& d = driver();
  current.context_id = d.complete() ? current_context_id(d) : 0;
  if (current.context_id != 0 && current.context_id == seen_context_id) {
    current.device = seen_device;
    return cudaSuccess;
  }
  if (cudaError_t rc = cudaGetDevice(&current.device); rc != cudaSuccess) return rc;
  if (current.context_id != 0) {
    seen_context_id = current.context_id;
    seen_device = current.device;
  }
  return cudaSuccess;
}

// Raises Kernel's dynamic shared memory limit to `shared_bytes` where that is more than the
// default 48 KiB. Done for the very function a launch uses, just before: a kernel template
// instantiated in several translation units has one host stub (and one device function) per unit,
// while the caches above are shared, so a limit raised through one unit's stub is not the limit
// of another's (the launch fails with cudaErrorInvalidValue).
template <auto Kernel>
cudaError_t raise_shared_limit(unsigned shared_bytes) {
  if (shared_bytes <= (48u << 10)) return cudaSuccess;
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(Kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                              int(shared_bytes));
}

// The driver's launch of `function`, as a programmatic dependent of the stream's work before it
// where `dependent` is set: its blocks may start before that work ends, and wait for it in
// wait_for_prior_grid (compute capability 9.0 and later).
inline CUresult driver_launch(const driver_functions& d, CUfunction function, dim3 grid, dim3 block,
                              unsigned shared_bytes, cudaStream_t stream, void** args, bool dependent) {
  if (!dependent) {
    return d.launch_kernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                           driver_stream(stream), args, nullptr);
  }
  if (d.launch_kernel_ex == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = grid.x, config.gridDimY = grid.y, config.gridDimZ = grid.z;
  config.blockDimX = block.x, config.blockDimY = block.y, config.blockDimZ = block.z;
  config.sharedMemBytes = shared_bytes;
  config.hStream = driver_stream(stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return d.launch_kernel_ex(&config, function, args, nullptr);
}

// Whether the driver can hold a programmatic dependent launch in a graph capture (CUDA 12.3 on).
inline bool driver_captures_dependent_launches() {
  static const bool captures = [] {
    int version = 0;
    return cudaDriverGetVersion(&version) == cudaSuccess && version >= 12030;
  }();
  return captures;
}

// Launches Kernel on `device` (the current device) with `shared_bytes` of dynamic shared memory,
// the same at every launch of a kernel (its limit is raised once, with the handle's lookup).
// `context_id`: the current context's, where the caller has just asked (get_current_device); 0
// asks again. `dependent`: as a programmatic dependent of the stream's work before it, only for a
// kernel compiled for compute capability 9.0 or later that calls wait_for_prior_grid before it
// touches memory that work uses. The launch is plain, for which the wait is a no-op, in a graph
// capture on a driver that cannot hold a dependent launch there (a refused launch could end the
// capture), and where the driver refuses the dependent launch.
template <auto Kernel>
cudaError_t launch_kernel(int device, dim3 grid, dim3 block, void** args, cudaStream_t stream,
                          unsigned shared_bytes = 0, unsigned long long context_id = 0, bool dependent = false) {
  const driver_functions& d = driver();
  if (dependent && !driver_captures_dependent_launches()) {
    bool capturing = true;
    dependent = stream_is_capturing(stream, capturing) == cudaSuccess && !capturing;
  }
  if (d.complete() && device >= 0 && device < kMaxDevices) {
    launch_handle& h = launch_handles<Kernel>[device];
    int state = h.state.load(std::memory_order_acquire);
    if (state == 0 && h.state.compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
      cudaFunction_t function = nullptr;
      const bool found = cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(Kernel)) == cudaSuccess &&
                         raise_shared_limit<Kernel>(shared_bytes) == cudaSuccess;
      const unsigned long long id = found ? current_context_id(d) : 0;
      if (id != 0) {
        h.function = function;
        h.context_id = id;
      }
      state = !found ? 3 : id != 0 ? 2 : 0;  // no context current yet: look it up again next time
      h.state.store(state, std::memory_order_release);
    }
    if (state == 2 && (context_id != 0 ? context_id : current_context_id(d)) == h.context_id) {
      if (dependent && driver_launch(d, h.function, grid, block, shared_bytes, stream, args, true) == CUDA_SUCCESS) {
        return cudaSuccess;
      }
      if (driver_launch(d, h.function, grid, block, shared_bytes, stream, args, false) == CUDA_SUCCESS) {
        return cudaSuccess;
      }
    }
  }
  // This unit's own stub, launched plainly: its limit too (rare: the driver's path failed or is
  // not there).
  if (cudaError_t rc = raise_shared_limit<Kernel>(shared_bytes); rc != cudaSuccess) return rc;
  return cudaLaunchKernel(Kernel, grid, block, args, shared_bytes, stream);
}

}  // namespace warpfold::detail
