// warpfold._warpfold: the compiled half of the Python package. It runs one reduce on pointers the
// Python side has checked and allocated through the caller's framework (warpfold/_core.py), and
// answers the questions about memory and streams that need the CUDA runtime. Every CUDA error
// becomes a RuntimeError that names it; the ones meaning "no usable GPU" say so first.

#include "entries.hpp"
#include "fast_calls.hpp"

#include <warpfold/detail/kernel_launch.cuh>

#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace warpfold::python {
namespace {

const entry_table& table() {
  static const entry_table entries = all_entries();
  return entries;
}

bool means_no_device(cudaError_t rc) {
  return rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver || rc == cudaErrorInvalidDevice ||
         rc == cudaErrorInitializationError || rc == cudaErrorCompatNotSupportedOnDevice ||
         rc == cudaErrorSystemDriverMismatch;
}

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::string message = std::string(what) + ": " + cudaGetErrorName(rc) + " (" + cudaGetErrorString(rc) + ")";
  if (means_no_device(rc)) message = "no usable CUDA device: " + message;
  throw std::runtime_error(message);
}

// Makes `device` current for one call and restores the caller's device after it.
class device_scope {
 public:
  explicit device_scope(int device) : device_(device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device_) check(cudaSetDevice(device_), "cudaSetDevice");
  }
  ~device_scope() {
    if (previous_ != device_) cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int device_;
  int previous_ = 0;
};

template <class Entry>
const Entry& entry_at(const std::vector<Entry>& entries, size_t index) {
  if (index >= entries.size()) throw std::out_of_range("no reduce entry " + std::to_string(index));
  return entries[index];
}

template <class Entry>
std::vector<std::string> keys_of(const std::vector<Entry>& entries) {
  std::vector<std::string> keys;
  for (const Entry& e : entries) keys.push_back(e.key);
  return keys;
}

// The compiled reduces of one kind: "full", "axis" or "segmented".
std::vector<std::string> entry_keys(const std::string& kind) {
  if (kind == "full") return keys_of(table().full);
  if (kind == "axis") return keys_of(table().axis);
  if (kind == "segmented") return keys_of(table().segmented);
  throw std::invalid_argument("no reduce entries of kind '" + kind + "': full, axis or segmented");
}

void* as_pointer(uintptr_t address) { return reinterpret_cast<void*>(address); }
cudaStream_t as_stream(uintptr_t handle) { return reinterpret_cast<cudaStream_t>(handle); }

size_t temp_bytes(size_t index, int device) {
  device_scope scope(device);
  size_t bytes = 0;
  check(entry_at(table().full, index).temp_bytes(bytes), "warpfold temp storage query");
  return bytes;
}

// Whether work queued on `stream` now would join a graph capture (also where the runtime cannot
// tell, which it reports as an error: that error is cleared, and the caller's launch meets it).
bool capturing(uintptr_t stream) {
  bool captured = false;
  if (detail::stream_is_capturing(as_stream(stream), captured) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return captured;
}

// "op in accumulator" of an entry's key "op/input/accumulator/output".
std::string op_and_accumulator(const std::string& key) {
  const size_t op_end = key.find('/'), acc_begin = key.find('/', op_end + 1) + 1;
  return key.substr(0, op_end) + " in " + key.substr(acc_begin, key.find('/', acc_begin) - acc_begin);
}

// Queues the reduce; false, queuing nothing, where `kept` temp storage (kept for every call on
// the stream) meets a graph capture, which would hold on to it past the call. More elements than
// the entry takes raise ValueError (nanobind's translation of invalid_argument).
bool run(size_t index, int device, uintptr_t in, uint64_t n, uintptr_t out, uintptr_t temp, size_t bytes,
         uintptr_t stream, bool kept) {
  const entry& e = entry_at(table().full, index);
  if (n > e.max_elements) {
    throw std::invalid_argument(op_and_accumulator(e.key) + " takes at most " + std::to_string(e.max_elements) +
                                " elements, not " + std::to_string(n));
  }
  if (kept && capturing(stream)) return false;
  device_scope scope(device);
  check(e.run(as_pointer(temp), bytes, as_pointer(in), as_pointer(out), n, as_stream(stream)), "warpfold reduce");
  return true;
}

axis_shape to_axis_shape(const axis_extents& s) {
  return {std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s), std::get<4>(s), std::get<5>(s)};
}

size_t axis_temp_bytes(size_t index, int device, const axis_extents& shape) {
  device_scope scope(device);
  size_t bytes = 0;
  check(entry_at(table().axis, index).temp_bytes(bytes, to_axis_shape(shape)), "warpfold axis temp storage query");
  return bytes;
}

void axis_run(size_t index, int device, uintptr_t in, const axis_extents& shape, uintptr_t out, uintptr_t temp,
              size_t bytes, uintptr_t stream) {
  device_scope scope(device);
  check(entry_at(table().axis, index)
            .run(as_pointer(temp), bytes, as_pointer(in), as_pointer(out), to_axis_shape(shape), as_stream(stream)),
        "warpfold reduce along an axis");
}

// axis_run with `kept` temp storage (kept for every call on the stream): false, queuing nothing,
// under a graph capture, as run.
bool axis_run_kept(size_t index, int device, uintptr_t in, const axis_extents& shape, uintptr_t out, uintptr_t temp,
                   size_t bytes, uintptr_t stream) {
  if (capturing(stream)) return false;
  axis_run(index, device, in, shape, out, temp, bytes, stream);
  return true;
}

size_t segmented_temp_bytes(size_t index, int device, uint64_t n, uint64_t segments) {
  device_scope scope(device);
  size_t bytes = 0;
  check(entry_at(table().segmented, index).temp_bytes(bytes, n, segments), "warpfold segmented temp storage query");
  return bytes;
}

void segmented_run(size_t index, int device, uintptr_t in, uint64_t n, uintptr_t out, uint64_t segments,
                   uintptr_t offsets, uintptr_t temp, size_t bytes, uintptr_t stream) {
  device_scope scope(device);
  check(entry_at(table().segmented, index)
            .run(as_pointer(temp), bytes, as_pointer(in), n, as_pointer(out), segments, as_pointer(offsets),
                 as_stream(stream)),
        "warpfold segmented reduce");
}

// Where a pointer lives: ("device", id), ("managed", id), ("host", -1) for pinned or registered
// host memory, ("unregistered", -1) for memory CUDA does not know (plain host memory).
std::tuple<std::string, int> pointer_location(uintptr_t pointer) {
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(pointer)), "cudaPointerGetAttributes");
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return {"device", attributes.device};
    case cudaMemoryTypeManaged: return {"managed", attributes.device};
    case cudaMemoryTypeHost: return {"host", -1};
    default: return {"unregistered", -1};
  }
}

int stream_device(uintptr_t stream) {
  int device = -1;
  check(cudaStreamGetDevice(reinterpret_cast<cudaStream_t>(stream), &device), "cudaStreamGetDevice");
  return device;
}

// Makes `stream` wait for the work queued so far on `producer` (without the host waiting).
void order_after(uintptr_t stream, uintptr_t producer) {
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  cudaError_t rc = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
  if (rc == cudaSuccess) rc = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(stream), event, 0);
  cudaEventDestroy(event);
  check(rc, "ordering the reduce after the producer's stream");
}

int device_count() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (means_no_device(rc)) return 0;
  check(rc, "cudaGetDeviceCount");
  return count;
}

// The DLPack description of any array nanobind can import (__dlpack__ or the buffer protocol):
// (data pointer, shape, strides in elements, dtype (code, bits, lanes), device (type, id)).
using dlpack_view_t = std::tuple<uintptr_t, std::vector<int64_t>, std::vector<int64_t>, std::tuple<int, int, int>,
                                 std::tuple<int, int>>;

dlpack_view_t dlpack_view(nb::ndarray<nb::ro> array) {
  std::vector<int64_t> shape, strides;
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape.push_back(int64_t(array.shape(i)));
    strides.push_back(array.stride(i));
  }
  const nb::dlpack::dtype dtype = array.dtype();
  return {reinterpret_cast<uintptr_t>(array.data()), shape, strides, {int(dtype.code), int(dtype.bits), int(dtype.lanes)},
          {array.device_type(), array.device_id()}};
}

}  // namespace
}  // namespace warpfold::python

NB_MODULE(_warpfold, m) {
  using namespace warpfold::python;
  m.doc() = "warpfold's compiled reduces; the API is the package warpfold";
  m.def("entry_keys", &entry_keys, nb::arg("kind") = "full",
        "The compiled reduces of a kind ('full', 'axis', 'segmented'), as 'op/input/accumulator/output' (segmented: "
        "'/offsets' after it) in table order.");
  m.def("temp_bytes", &temp_bytes, nb::arg("index"), nb::arg("device"),
        "Temp storage bytes of entry `index` on `device` (fixed per entry and device).");
  m.def("run", &run, nb::arg("index"), nb::arg("device"), nb::arg("data"), nb::arg("n"), nb::arg("out"),
        nb::arg("temp"), nb::arg("temp_bytes"), nb::arg("stream"), nb::arg("kept") = false,
        "Launches entry `index` on `stream` and returns True at once (no synchronisation); with kept=True "
        "(temp storage kept for the stream's calls), returns False and launches nothing where the stream is "
        "capturing a graph.");
  m.def("capturing", &capturing, nb::arg("stream"), "Whether `stream` is capturing a CUDA graph.");
  m.def("axis_temp_bytes", &axis_temp_bytes, nb::arg("index"), nb::arg("device"), nb::arg("shape"),
        "Temp storage bytes of axis entry `index` for shape (outer, axis, inner, outer_stride, axis_stride, "
        "inner_stride) on `device`.");
  m.def("axis_run", &axis_run, nb::arg("index"), nb::arg("device"), nb::arg("data"), nb::arg("shape"), nb::arg("out"),
        nb::arg("temp"), nb::arg("temp_bytes"), nb::arg("stream"),
        "Launches axis entry `index` over `shape` on `stream`; returns at once.");
  m.def("axis_run_kept", &axis_run_kept, nb::arg("index"), nb::arg("device"), nb::arg("data"), nb::arg("shape"),
        nb::arg("out"), nb::arg("temp"), nb::arg("temp_bytes"), nb::arg("stream"),
        "axis_run with temp storage kept for the stream: false, queuing nothing, under a graph capture.");
  m.def("segmented_temp_bytes", &segmented_temp_bytes, nb::arg("index"), nb::arg("device"), nb::arg("n"),
        nb::arg("segments"), "Temp storage bytes of segmented entry `index` over n elements and `segments` segments.");
  m.def("segmented_run", &segmented_run, nb::arg("index"), nb::arg("device"), nb::arg("data"), nb::arg("n"),
        nb::arg("out"), nb::arg("segments"), nb::arg("offsets"), nb::arg("temp"), nb::arg("temp_bytes"),
        nb::arg("stream"), "Launches segmented entry `index` on `stream`; returns at once.");
  m.def("pointer_location", &pointer_location, nb::arg("pointer"), "('device'|'managed'|'host'|'unregistered', id)");
  m.def("stream_device", &stream_device, nb::arg("stream"), "The device a CUDA stream belongs to.");
  m.def("order_after", &order_after, nb::arg("stream"), nb::arg("producer"),
        "Makes `stream` wait for the work queued on `producer` (no host synchronisation).");
  m.def("device_count", &device_count, "CUDA devices visible (0 without a driver or device).");
  m.def("dlpack_view", &dlpack_view, nb::arg("array"),
        "(data, shape, strides, (code, bits, lanes), (device_type, device_id)) of a DLPack or buffer array.");
  bind_fast_calls(m, {&run, &axis_run_kept});
}
