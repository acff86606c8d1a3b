#pragma once
// The per-call fast path of warpfold._warpfold in C++ (fast_calls.cpp): the way from a Python call
// of warpfold.sum (and its kin) to the launch, without a Python frame or bytecode in between.

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>

namespace warpfold::python {

// The module's own launch function (module.cpp). The fast path calls it directly while the
// module's attribute `run` still names it, and through that attribute where something has
// replaced it (the tests' recording stand-in).
using run_function = bool (*)(size_t index, int device, uintptr_t in, uint64_t n, uintptr_t out, uintptr_t temp,
                              size_t bytes, uintptr_t stream, bool kept);

// Adds set_routes and dispatch to the module, once `run` is defined in it.
void bind_fast_calls(nanobind::module_& m, run_function own_run);

}  // namespace warpfold::python
