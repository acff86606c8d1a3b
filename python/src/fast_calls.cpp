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
// and run_full where it does not. A reduce along one dim is offered to serve_torch_along in the
// same way (TorchCalls.along, given served_along). Any other case goes to TorchCalls.full or
// .along itself, which reads the tensor's attributes again.
// The fast-path tests (python/tests/test_fast_path.py) run it on stand-in frameworks against the
// general path.

#include "fast_calls.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace nb = nanobind;

namespace warpfold::python {
namespace {

// FullCall's fields (warpfold/_fast.py), by position.
enum full_call_field : Py_ssize_t { kIndex = 0, kResult, kTempBytes, kSearch, kNeedsElements, kLike, kFields };
// AlongCall's and Launches' fields, by position; a step is (entry, extents, into, temp bytes).
enum along_call_field : Py_ssize_t { kAlongShape = 0, kAlongResult, kPlan, kOffset, kWhole, kAlongLike, kAlongFields };
enum launches_field : Py_ssize_t { kSteps = 0, kScratch, kWorkAt, kKeeps, kLaunchesFields };

// Interned attribute names and the index 1, made once and never released (they outlive every call).
struct names_t {
  PyObject *is_cuda, *is_contiguous, *get_device, *dtype, *numel, *data_ptr, *shape, *stride, *run, *axis_run_kept,
      *served_full, *served_along, *full, *along, *one;
};

const names_t& names() {
  static const names_t n = [] {
    auto name = [](const char* s) {
      PyObject* o = PyUnicode_InternFromString(s);
      if (!o) throw nb::python_error();
      return o;
    };
    return names_t{name("is_cuda"),      name("is_contiguous"), name("get_device"),   name("dtype"),
                   name("numel"),        name("data_ptr"),      name("shape"),        name("stride"),
                   name("run"),          name("axis_run_kept"), name("served_full"),  name("served_along"),
                   name("full"),         name("along"),         PyLong_FromLong(1)};
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

int64_t as_i64(nb::handle h) {
  const long long v = PyLong_AsLongLong(h.ptr());
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

int as_device(nb::handle h) {
  const long v = PyLong_AsLong(h.ptr());
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return int(v);
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

// What the fast path was given: the module's launch functions and dictionary (where the tests'
// stand-ins replace them), and the function objects the module defined, held until exit; _api's
// routes (set_routes), held until they are set again or the interpreter exits.
launch_functions own_launch{};
PyObject* module_dict = nullptr;
PyObject *own_run = nullptr, *own_axis_run_kept = nullptr;
struct routes_t {
  PyObject *fast = nullptr, *calls_for = nullptr, *full_reduce = nullptr, *reduce_along = nullptr;
} routes;

// The module's attribute `name`, where it is no longer `own` (a stand-in); else an invalid handle.
nb::handle replaced(PyObject* name, PyObject* own) {
  PyObject* current = PyDict_GetItem(module_dict, name);
  return current == own || current == nullptr ? nb::handle() : nb::handle(current);
}

// _ext.run(index, device, data, count, out, temp, nbytes, stream, kept=True): false, launching
// nothing, under a graph capture.
bool run_kept(nb::handle index, nb::handle device, nb::handle data, nb::handle count, nb::handle out, nb::handle temp,
              nb::handle nbytes, nb::handle stream) {
  if (nb::handle f = replaced(names().run, own_run); f.is_valid()) {
    return truth(f(index, device, data, count, out, temp, nbytes, stream, nb::handle(Py_True)));
  }
  return own_launch.run(size_t(as_u64(index)), as_device(device), uintptr_t(as_u64(data)), as_u64(count),
                        uintptr_t(as_u64(out)), uintptr_t(as_u64(temp)), size_t(as_u64(nbytes)),
                        uintptr_t(as_u64(stream)), true);
}

// An extents tuple of Python ints (outer, axis, inner, their strides) as axis_run_kept takes it.
axis_extents to_extents(nb::handle t) {
  if (!PyTuple_Check(t.ptr()) || PyTuple_GET_SIZE(t.ptr()) != 6) throw std::runtime_error("warpfold: bad extents");
  auto at = [&](Py_ssize_t i) { return nb::handle(PyTuple_GET_ITEM(t.ptr(), i)); };
  return {as_u64(at(0)), as_u64(at(1)), as_u64(at(2)), as_i64(at(3)), as_i64(at(4)), as_i64(at(5))};
}

// _ext.axis_run_kept(index, device, data, extents, out, temp, nbytes, stream): false, launching
// nothing, under a graph capture.
bool axis_run_kept(nb::handle index, nb::handle device, nb::handle data, nb::handle extents, nb::handle out,
                   nb::handle temp, nb::handle nbytes, nb::handle stream) {
  if (nb::handle f = replaced(names().axis_run_kept, own_axis_run_kept); f.is_valid()) {
    return truth(f(index, device, data, extents, out, temp, nbytes, stream));
  }
  return own_launch.axis_run_kept(size_t(as_u64(index)), as_device(device), uintptr_t(as_u64(data)),
                                  to_extents(extents), uintptr_t(as_u64(out)), uintptr_t(as_u64(temp)),
                                  size_t(as_u64(nbytes)), uintptr_t(as_u64(stream)));
}

// TorchCalls' served_full: (full_calls, kept, current_stream, empty_like, run_full, fw), and its
// served_along: (along_calls, the same five, current_device, run_along, run_along_own), by position.
enum torch_state_field : Py_ssize_t {
  kCalls = 0, kKept, kCurrentStream, kEmptyLike, kRunFull, kFramework, kStateFields,
  kCurrentDevice = kStateFields, kRunAlong, kRunAlongOwn, kAlongStateFields
};

nb::handle field(nb::handle tuple, Py_ssize_t i) { return PyTuple_GET_ITEM(tuple.ptr(), i); }

bool is_torch_state(nb::handle h, Py_ssize_t fields) {
  return PyTuple_CheckExact(h.ptr()) && PyTuple_GET_SIZE(h.ptr()) == fields && PyDict_Check(field(h, kCalls).ptr()) &&
         PyDict_Check(field(h, kKept).ptr());
}

bool is_tuple_of(nb::handle h, Py_ssize_t size) {
  return h.is_valid() && PyTuple_Check(h.ptr()) && PyTuple_GET_SIZE(h.ptr()) == size;
}

// The block kept for (device, stream) where it holds `nbytes`: its address (held here, whatever
// the dictionary does meanwhile); else an invalid object.
nb::object kept_block(nb::handle state, nb::handle device, nb::handle stream, nb::handle nbytes) {
  nb::object held = lookup(field(state, kKept), owned(PyTuple_Pack(2, device.ptr(), stream.ptr())));
  if (!is_tuple_of(held, 2) || as_u64(field(held, 1)) < as_u64(nbytes)) return {};
  return nb::borrow(field(held, 0));
}

// TorchCalls.run's body: a full reduce on `stream` with its kept block where it serves, else
// run_full.
void run_whole(nb::handle state, nb::handle index, nb::handle device, nb::handle data, nb::handle count,
               nb::handle out, nb::handle nbytes, nb::handle stream) {
  nb::object kept = kept_block(state, device, stream, nbytes);
  if (kept.is_valid() && run_kept(index, device, data, count, out, kept, nbytes, stream)) return;
  field(state, kRunFull)(field(state, kFramework), index, device, data, count, out, nbytes, stream, true);
}

// TorchCalls.full(op, x, requested) where its call is kept with a template, as full() runs it;
// else an invalid object, having called nothing but x's attributes and the lookups.
nb::object serve_torch_full(nb::handle state, nb::handle op, nb::handle x, nb::handle requested) {
  const names_t& n = names();
  if (!truth(attr(x, n.is_cuda)) || !truth(call_method(x, n.is_contiguous))) return {};
  nb::object device = call_method(x, n.get_device);
  nb::object call = lookup(field(state, kCalls),
                           owned(PyTuple_Pack(4, op.ptr(), attr(x, n.dtype).ptr(), requested.ptr(), device.ptr())));
  if (!is_tuple_of(call, kFields)) return {};
  nb::handle like = field(call, kLike);
  nb::object count = call_method(x, n.numel);
  if (like.is_none() || (as_u64(count) == 0 && truth(field(call, kNeedsElements)))) return {};
  nb::object stream = field(state, kCurrentStream)(device);
  nb::object answer = field(state, kEmptyLike)(like);
  run_whole(state, field(call, kIndex), device, call_method(x, n.data_ptr), count, call_method(answer, n.data_ptr),
            field(call, kTempBytes), stream);
  return truth(field(call, kSearch)) ? owned(PyObject_GetItem(answer.ptr(), n.one)) : answer;
}

// x's data pointer plus `offset` bytes.
nb::object data_at(nb::handle x, nb::handle offset) {
  return owned(PyNumber_Add(call_method(x, names().data_ptr).ptr(), offset.ptr()));
}

// Whether `plan` is a Launches whose first step is (entry, extents, into, temp bytes).
bool is_plan(nb::handle plan) {
  if (!is_tuple_of(plan, kLaunchesFields)) return false;
  nb::handle steps = field(plan, kSteps);
  return PyTuple_Check(steps.ptr()) && PyTuple_GET_SIZE(steps.ptr()) >= 1 && is_tuple_of(field(steps, 0), 4);
}

// TorchCalls.run_along's body: one pass with the kept block where it holds the plan's temp
// storage (else run_along itself, which may make the block), run_along_own under a capture.
void run_plan(nb::handle state, nb::handle plan, nb::handle device, nb::handle data, nb::handle out) {
  if (!truth(field(plan, kKeeps))) {
    field(state, kRunAlong)(plan, device, data, out);
    return;
  }
  nb::object stream = field(state, kCurrentStream)(device);
  nb::object kept = kept_block(state, device, stream, field(plan, kScratch));
  if (!kept.is_valid()) {
    field(state, kRunAlong)(plan, device, data, out);  // asks the current stream again: no side effect
    return;
  }
  nb::handle step = field(field(plan, kSteps), 0);
  if (!truth(kept) ||
      !axis_run_kept(field(step, 0), device, data, field(step, 1), out, kept, field(step, 3), stream)) {
    field(state, kRunAlongOwn)(plan, device, stream, data, out);
  }
}

// TorchCalls.along(op, x, dim, keepdim, requested) where its call is kept with a template, on the
// current device, as along() runs it; else an invalid object, having called nothing but x's
// attributes, the current device and the lookups.
nb::object serve_torch_along(nb::handle state, nb::handle op, nb::handle x, nb::handle dim, nb::handle keepdim,
                             nb::handle requested) {
  const names_t& n = names();
  if (!PyLong_CheckExact(dim.ptr()) || !truth(attr(x, n.is_cuda))) return {};  // a bool is no exact int
  nb::object device = call_method(x, n.get_device);
  nb::object key = owned(PyTuple_Pack(8, op.ptr(), attr(x, n.dtype).ptr(), attr(x, n.shape).ptr(),
                                      call_method(x, n.stride).ptr(), dim.ptr(), keepdim.ptr(), requested.ptr(),
                                      device.ptr()));
  nb::object call = lookup(field(state, kCalls), key);
  if (!is_tuple_of(call, kAlongFields) || field(call, kAlongLike).is_none()) return {};
  nb::handle plan = field(call, kPlan), whole = field(call, kWhole);
  if ((!plan.is_none() && !is_plan(plan)) || (!whole.is_none() && !is_tuple_of(whole, 3))) return {};
  const int equal = PyObject_RichCompareBool(field(state, kCurrentDevice)().ptr(), device.ptr(), Py_EQ);
  if (equal < 0) throw nb::python_error();
  if (!equal) return {};
  nb::object answer = field(state, kEmptyLike)(field(call, kAlongLike));
  if (!whole.is_none()) {
    run_whole(state, field(whole, 0), device, data_at(x, field(call, kOffset)), field(whole, 2),
              call_method(answer, n.data_ptr), field(whole, 1), field(state, kCurrentStream)(device));
  } else if (!plan.is_none()) {
    run_plan(state, plan, device, data_at(x, field(call, kOffset)), call_method(answer, n.data_ptr));
  }
  return answer;
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
      if (!whole) {
        if (nb::object state = attr(calls, n.served_along); is_torch_state(state, kAlongStateFields)) {
          if (nb::object result = serve_torch_along(state, op, x, dim, keepdim, dtype); result.is_valid()) return result;
        }
        return attr(calls, n.along)(op, x, dim, keepdim, dtype);
      }
      if (nb::object state = attr(calls, n.served_full); is_torch_state(state, kStateFields)) {
        if (nb::object result = serve_torch_full(state, op, x, dtype); result.is_valid()) return result;
      }
      return attr(calls, n.full)(op, x, dtype);
    }
  }
  if (whole) return nb::borrow(routes.full_reduce)(op, x, dtype, out, stream);
  return nb::borrow(routes.reduce_along)(op, x, dim, keepdim, dtype, out, stream);
}

// A parameter as a signature shows it: its name, with `=default` where it has one; `*` where the
// keyword-only parameters begin.
template <uint32_t Flags, bool Locked>
std::string parameter_text(const nb::arg_t<Flags, Locked>& parameter) {
  return parameter.name_;
}
template <uint32_t Flags, bool Locked>
std::string parameter_text(const nb::arg_v_t<Flags, Locked>& parameter) {
  return std::string(parameter.name_) + "=" + nb::repr(parameter.value).c_str();
}
std::string parameter_text(nb::kw_only) { return "*"; }

// The scope nanobind is given for the entry points. nanobind takes the scope's __module__ for the
// function's, sets the function on the scope, and reads the scope's __qualname__ whenever the
// function's is asked for, without holding a reference to it. A module as that scope can be
// collected while its functions live on (once it leaves sys.modules); held for good, it would keep
// its functions alive through the interpreter's teardown, which clears only the modules still in
// sys.modules. So the scope is this namespace, made once and never released, with no __qualname__
// of its own (a function's is its name), and each function is taken off it once made: it outlives
// every function and keeps none alive.
nb::handle entry_scope() {
  static PyObject* const scope = nb::module_::import_("types").attr("SimpleNamespace")().release().ptr();
  return scope;
}

// warpfold.`op` as a function whose __module__ is `module`'s name: `call` maps the op's
// parameters onto dispatch, and `parameters` (nb::arg and nb::kw_only, in `call`'s order) name
// them; help() shows the signature written from them, as "def op(x, dim=None, *, ...)". nb::name
// goes before nb::sig: nanobind takes the name's text from the signature, but gives the function a
// __name__ and __qualname__ only where nb::name is there too.
template <typename Call, typename... Parameters>
nb::object entry_function(const std::string& op, nb::handle module, const char* doc, Call call,
                          const Parameters&... parameters) {
  std::string list;
  ((list += (list.empty() ? "" : ", ") + parameter_text(parameters)), ...);
  const std::string signature = "def " + op + "(" + list + ")";
  const nb::handle scope = entry_scope();
  nb::setattr(scope, "__module__", module.attr("__name__"));
  nb::object function = nb::cpp_function(std::move(call), nb::scope(scope), nb::name(op.c_str()),
                                         nb::sig(signature.c_str()), parameters..., doc);
  nb::delattr(scope, op.c_str());
  return function;
}

// warpfold.sum and its kin as functions of the extension: dispatch with the op bound and the
// call's own keywords parsed in C++, so that a call makes no Python frame before the launch. _api
// gives each its docstring and the module that names it: the function keeps the module's name as
// its __module__, not the module (entry_scope), and binding it in the module is _api's. The
// parameters follow from the op: x and dim by position or keyword, the rest keyword-only.
nb::object entry_point(nb::str op_name, nb::str doc, nb::module_ module) {
  const std::string op = op_name.c_str();
  nb::object name = owned(PyUnicode_InternFromString(op.c_str()));
  const auto x = nb::arg("x").none();
  const auto dim = nb::arg("dim").none() = nb::none();
  const auto keepdim = nb::arg("keepdim").none() = false;
  const auto dtype = nb::arg("dtype").none() = nb::none();
  const auto out = nb::arg("out").none() = nb::none();
  const auto stream = nb::arg("stream").none() = nb::none();
  const nb::handle none = nb::none(), no = Py_False;
  if (op == "sum" || op == "prod") {
    return entry_function(
        op, module, doc.c_str(),
        [name](nb::handle x, nb::handle dim, nb::handle keepdim, nb::handle dtype, nb::handle out, nb::handle stream) {
          return dispatch(name, x, dim, keepdim, dtype, out, stream);
        },
        x, dim, nb::kw_only(), keepdim, dtype, out, stream);
  }
  if (op == "min" || op == "max") {
    return entry_function(
        op, module, doc.c_str(),
        [name, none](nb::handle x, nb::handle dim, nb::handle keepdim, nb::handle out, nb::handle stream) {
          return dispatch(name, x, dim, keepdim, none, out, stream);
        },
        x, dim, nb::kw_only(), keepdim, out, stream);
  }
  if (op == "argmin" || op == "argmax") {
    return entry_function(
        op, module, doc.c_str(),
        [name, none](nb::handle x, nb::handle dim, nb::handle keepdim, nb::handle stream) {
          return dispatch(name, x, dim, keepdim, none, none, stream);
        },
        x, dim, nb::kw_only(), keepdim, stream);
  }
  if (op == "reproducible_sum") {
    return entry_function(
        op, module, doc.c_str(),
        [name, none, no](nb::handle x, nb::handle dtype, nb::handle out, nb::handle stream) {
          return dispatch(name, x, none, no, dtype, out, stream);
        },
        x, nb::kw_only(), dtype, out, stream);
  }
  throw nb::value_error(("warpfold: no entry point for the op " + op).c_str());
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
  Py_CLEAR(own_axis_run_kept);
  for (PyObject** o : {&routes.fast, &routes.calls_for, &routes.full_reduce, &routes.reduce_along}) Py_CLEAR(*o);
}

}  // namespace

void bind_fast_calls(nb::module_& m, launch_functions own) {
  own_launch = own;
  module_dict = PyModule_GetDict(m.ptr());  // the module's own, as long as it lives
  own_run = nb::object(m.attr("run")).release().ptr();
  own_axis_run_kept = nb::object(m.attr("axis_run_kept")).release().ptr();
  names();
  nb::module_::import_("atexit").attr("register")(nb::cpp_function(&release_at_exit));
  m.def("set_routes", &set_routes, nb::arg("fast"), nb::arg("calls_for"), nb::arg("full_reduce"),
        nb::arg("reduce_along"),
        "Where dispatch sends a call: _fast.FAST (type -> its fast path, or False), _fast.calls_for, "
        "_core.full_reduce and _axis.reduce_along.");
  m.def("dispatch", &dispatch, nb::arg("op"), nb::arg("x").none(), nb::arg("dim").none(), nb::arg("keepdim").none(),
        nb::arg("dtype").none(), nb::arg("out").none(), nb::arg("stream").none(),
        "warpfold._api's _reduce(op, x, dim, keepdim, dtype, out, stream): a reduce of a PyTorch tensor served "
        "by its fast path's served_full or served_along state where it can be, else the fast path of x's type, "
        "else full_reduce or reduce_along.");
  m.def("entry_point", &entry_point, nb::arg("op"), nb::arg("doc"), nb::arg("module"),
        "warpfold.`op` (sum, prod, min, max, argmin, argmax or reproducible_sum) as dispatch with `op` bound, "
        "with `doc`, named as a function of `module`.");
}

}  // namespace warpfold::python
