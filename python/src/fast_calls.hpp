#pragma once
// The per-call fast path of warpfold._warpfold in C++ (fast_calls.cpp): the way from a Python call
// of warpfold.sum (and its kin) to the launch, without a Python frame or bytecode in between.

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>

namespace warpfold::python {

// The module's own launch functions (module.cpp). The fast path calls them directly while the
// module's attributes `run` and `capturing` still name them, and through those attributes where
// something has replaced them (the tests' recording stand-ins).
struct launch_functions {
  bool (*run)(size_t index, int device, uintptr_t in, uint64_t n, uintptr_t out, uintptr_t temp, size_t bytes,
              uintptr_t stream, bool kept);
  bool (*capturing)(uintptr_t stream);
};

// Adds set_routes and dispatch to the module, once `run` and `capturing` are defined in it.
void bind_fast_calls(nanobind::module_& m, launch_functions own);

}  // namespace warpfold::python
