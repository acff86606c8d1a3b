#pragma once
// The per-call fast path of warpfold._warpfold in C++ (fast_calls.cpp): the way from a Python call
// of warpfold.sum (and its kin) to the launch, without a Python frame or bytecode in between.

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <tuple>

namespace warpfold::python {

// An axis shape as the module takes it from Python: (outer, axis, inner, outer_stride,
// axis_stride, inner_stride).
using axis_extents = std::tuple<uint64_t, uint64_t, uint64_t, int64_t, int64_t, int64_t>;

// The module's own launch functions (module.cpp), `run` and `axis_run_kept`. The fast path calls
// each directly while the module's attribute of its name still names it, and through that
// attribute where something has replaced it (the tests' recording stand-ins).
struct launch_functions {
  bool (*run)(size_t index, int device, uintptr_t in, uint64_t n, uintptr_t out, uintptr_t temp, size_t bytes,
              uintptr_t stream, bool kept);
  bool (*axis_run_kept)(size_t index, int device, uintptr_t in, const axis_extents& extents, uintptr_t out,
                        uintptr_t temp, size_t bytes, uintptr_t stream);
};

// Adds set_routes, dispatch and entry_point to the module, once `run` and `axis_run_kept` are
// defined in it.
void bind_fast_calls(nanobind::module_& m, launch_functions own);

}  // namespace warpfold::python
