// dispatch: the Python code of a small reduce's way from warpfold.sum (and its kin) to the
// launch, run as C++.
//
// A small reduce from Python is bound by its host time, and from an idle GPU each Python frame
// and bytecode on the way costs several times its back-to-back time (docs/design.md, row L10).
// dispatch is warpfold._api's _reduce: a call without out= or stream= goes to the fast path of
// its array's type (warpfold._fast.FAST, filled by calls_for); every other call to full_reduce or
// reduce_along. A whole reduce whose fast path has a served_full state (PyTorch's) is first offered
// to serve_torch_full, which is TorchCalls.full for a contiguous CUDA tensor whose call shape is
// kept with a result template: the same calls in the same order, the kept block where it serves
// and run_full where it does not. Any other case goes to TorchCalls.full itself, which reads the
// tensor's attributes again.
// The fast-path tests (python/tests/test_fast_path.py) run it on stand-in frameworks against the
// general path.

#include "fast_calls.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace nb = nanobind;

namespace warpfold::python {
namespace {

// FullCall's fields (warpfold/_fast.py), by position.
enum full_call_field : Py_ssize_t { kIndex = 0, kResult, kTempBytes, kSearch, kNeedsElements, kLike, kFields };

// Interned attribute names and the index 1, made once and never released (they outlive every call).
struct names_t {
  PyObject *is_cuda, *is_contiguous, *get_device, *dtype, *numel, *data_ptr, *run, *served_full, *full, *along, *one;
};

const names_t& names() {
  static const names_t n = [] {
    auto name = [](const char* s) {
      PyObject* o = PyUnicode_InternFromString(s);
      if (!o) throw nb::python_error();
      return o;
    };
    return names_t{name("is_cuda"), name("is_contiguous"), name("get_device"), name("dtype"), name("numel"),
                   name("data_ptr"), name("run"), name("served_full"), name("full"), name("along"),
                   PyLong_FromLong(1)};
  }();
  return n;
}

nb::object owned(PyObject* o) {
  if (!o) throw nb::python_error();
  return nb::steal(o);
}

bool truth(nb::handle h) {
  const int t = PyObject_IsTrue(h.ptr());
  if (t < 0) throw nb::python_error();
  return t != 0;
}

nb::object attr(nb::handle o, PyObject* name) { return owned(PyObject_GetAttr(o.ptr(), name)); }
nb::object call_method(nb::handle o, PyObject* name) { return owned(PyObject_CallMethodNoArgs(o.ptr(), name)); }

uint64_t as_u64(nb::handle h) {
  const unsigned long long v = PyLong_AsUnsignedLongLong(h.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw nb::python_error();
  return v;
}

// dict[key], or an invalid object where it is missing or the key cannot be hashed (TypeError,
// which TorchCalls.full meets again and handles); any other error is raised.
nb::object lookup(nb::handle dict, nb::handle key) {
  PyObject* value = PyDict_GetItemWithError(dict.ptr(), key.ptr());
  if (!value) {
    if (PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
      PyErr_Clear();
    }
    return {};
  }
  return nb::borrow(value);
}

// What the fast path was given: the module's launch function and dictionary (where the tests'
// stand-ins replace it), and the function object the module defined, held until exit; _api's
// routes (set_routes), held until they are set again or the interpreter exits.
run_function own_launch = nullptr;
PyObject* module_dict = nullptr;
PyObject* own_run = nullptr;
struct routes_t {
  PyObject *fast = nullptr, *calls_for = nullptr, *full_reduce = nullptr, *reduce_along = nullptr;
} routes;

// The module's `run`, where it is no longer its own (a stand-in); else an invalid handle.
nb::handle replaced_run() {
  PyObject* current = PyDict_GetItem(module_dict, names().run);
  return current == own_run || current == nullptr ? nb::handle() : nb::handle(current);
}

// _ext.run(index, device, data, count, out, temp, nbytes, stream, kept=True): false, launching
// nothing, under a graph capture.
bool run_kept(nb::handle index, nb::handle device, nb::handle data, nb::handle count, nb::handle out, nb::handle temp,
              nb::handle nbytes, nb::handle stream) {
  if (nb::handle f = replaced_run(); f.is_valid()) {
    return truth(f(index, device, data, count, out, temp, nbytes, stream, nb::handle(Py_True)));
  }
  const long device_index = PyLong_AsLong(device.ptr());
  if (device_index == -1 && PyErr_Occurred()) throw nb::python_error();
  return own_launch(size_t(as_u64(index)), int(device_index), uintptr_t(as_u64(data)), as_u64(count),
                    uintptr_t(as_u64(out)), uintptr_t(as_u64(temp)), size_t(as_u64(nbytes)), uintptr_t(as_u64(stream)),
                    true);
}

// TorchCalls' served_full: (full_calls, kept, current_stream, empty_like, run_full, fw), by position.
enum torch_state_field : Py_ssize_t {
  kCalls = 0, kKept, kCurrentStream, kEmptyLike, kRunFull, kFramework, kStateFields
};

nb::handle field(nb::handle tuple, Py_ssize_t i) { return PyTuple_GET_ITEM(tuple.ptr(), i); }

bool is_torch_state(nb::handle h) {
  return PyTuple_CheckExact(h.ptr()) && PyTuple_GET_SIZE(h.ptr()) == kStateFields &&
         PyDict_Check(field(h, kCalls).ptr()) && PyDict_Check(field(h, kKept).ptr());
}

// TorchCalls.full(op, x, requested) where its call is kept with a template, as full() runs it;
// else an invalid object, having called nothing but x's attributes and the lookups.
nb::object serve_torch_full(nb::handle state, nb::handle op, nb::handle x, nb::handle requested) {
  const names_t& n = names();
  if (!truth(attr(x, n.is_cuda)) || !truth(call_method(x, n.is_contiguous))) return {};
  nb::object device = call_method(x, n.get_device);
  nb::object call = lookup(field(state, kCalls),
                           owned(PyTuple_Pack(4, op.ptr(), attr(x, n.dtype).ptr(), requested.ptr(), device.ptr())));
  if (!call.is_valid() || !PyTuple_Check(call.ptr()) || PyTuple_GET_SIZE(call.ptr()) != kFields) return {};
  nb::handle index = field(call, kIndex), like = field(call, kLike), nbytes = field(call, kTempBytes);
  nb::object count = call_method(x, n.numel);
  if (like.is_none() || (as_u64(count) == 0 && truth(field(call, kNeedsElements)))) return {};
  nb::object stream = field(state, kCurrentStream)(device);
  nb::object answer = field(state, kEmptyLike)(like);
  nb::object held = lookup(field(state, kKept), owned(PyTuple_Pack(2, device.ptr(), stream.ptr())));
  nb::object data = call_method(x, n.data_ptr), out = call_method(answer, n.data_ptr);
  const bool ran = held.is_valid() && PyTuple_Check(held.ptr()) && PyTuple_GET_SIZE(held.ptr()) == 2 &&
                   as_u64(field(held, 1)) >= as_u64(nbytes) &&
                   run_kept(index, device, data, count, out, field(held, 0), nbytes, stream);
  if (!ran) field(state, kRunFull)(field(state, kFramework), index, device, data, count, out, nbytes, stream, true);
  return truth(field(call, kSearch)) ? owned(PyObject_GetItem(answer.ptr(), n.one)) : answer;
}

// _api's _reduce(op, x, dim, keepdim, dtype, out, stream). The routes are held while they run,
// in case one of them sets new ones.
nb::object dispatch(nb::handle op, nb::handle x, nb::handle dim, nb::handle keepdim, nb::handle dtype, nb::handle out,
                    nb::handle stream) {
  if (!routes.fast) throw std::runtime_error("warpfold: the dispatch has no routes (warpfold._api sets them)");
  const names_t& n = names();
  const bool whole = dim.is_none() && !truth(keepdim);
  if (out.is_none() && stream.is_none()) {
    nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
    nb::object calls = lookup(routes.fast, type);
    if (!calls.is_valid() || calls.is_none()) calls = nb::borrow(routes.calls_for)(type);
    if (truth(calls)) {
      if (!whole) return attr(calls, n.along)(op, x, dim, keepdim, dtype);
      if (nb::object state = attr(calls, n.served_full); is_torch_state(state)) {
        if (nb::object result = serve_torch_full(state, op, x, dtype); result.is_valid()) return result;
      }
      return attr(calls, n.full)(op, x, dtype);
    }
  }
  if (whole) return nb::borrow(routes.full_reduce)(op, x, dtype, out, stream);
  return nb::borrow(routes.reduce_along)(op, x, dim, keepdim, dtype, out, stream);
}

void set_routes(nb::dict fast, nb::object calls_for, nb::object full_reduce, nb::object reduce_along) {
  routes_t previous = routes;
  routes = {fast.release().ptr(), calls_for.release().ptr(), full_reduce.release().ptr(),
            reduce_along.release().ptr()};
  for (PyObject* o : {previous.fast, previous.calls_for, previous.full_reduce, previous.reduce_along}) Py_XDECREF(o);
}

// At exit, before modules are torn down: nanobind reports its functions still held then as leaked.
void release_at_exit() {
  Py_CLEAR(own_run);
  for (PyObject** o : {&routes.fast, &routes.calls_for, &routes.full_reduce, &routes.reduce_along}) Py_CLEAR(*o);
}

}  // namespace

void bind_fast_calls(nb::module_& m, run_function own) {
  own_launch = own;
  module_dict = PyModule_GetDict(m.ptr());  // the module's own, as long as it lives
  own_run = nb::object(m.attr("run")).release().ptr();
  names();
  nb::module_::import_("atexit").attr("register")(nb::cpp_function(&release_at_exit));
  m.def("set_routes", &set_routes, nb::arg("fast"), nb::arg("calls_for"), nb::arg("full_reduce"),
        nb::arg("reduce_along"),
        "Where dispatch sends a call: _fast.FAST (type -> its fast path, or False), _fast.calls_for, "
        "_core.full_reduce and _axis.reduce_along.");
  m.def("dispatch", &dispatch, nb::arg("op"), nb::arg("x").none(), nb::arg("dim").none(), nb::arg("keepdim").none(),
        nb::arg("dtype").none(), nb::arg("out").none(), nb::arg("stream").none(),
        "warpfold._api's _reduce(op, x, dim, keepdim, dtype, out, stream): a whole reduce of a PyTorch tensor "
        "served by its fast path's served_full state where it can be, else the fast path of x's type, else "
        "full_reduce or reduce_along.");
}

}  // namespace warpfold::python
