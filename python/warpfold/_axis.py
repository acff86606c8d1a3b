"""Reductions along dims (dim=, keepdim=): warpfold::reduce_axis over the input's own strides.

The input is written as [outer][axis][inner] with a stride per extent (_layout.axis_shape):
adjacent kept dims merge, the reduced dims merge into one extent. Where they cannot, a
C-contiguous input is reduced in passes, one per run of adjacent reduced dims
(x.sum(dim=(0, 2))), the partial results in temp storage; any other layout is first copied into
C order by its framework (PyTorch and CuPy arrays; other producers get a ValueError). Reducing
every dim of size above 1 of a dense input is the full reduce, for every dtype.
"""

from __future__ import annotations

import operator
from typing import NamedTuple, Optional

from . import _warpfold as _ext
from ._core import (Entries, allocating_on, checked_out, device_of, full_reduce_input, launch_stream, stream_handle,
                    to_caller)
from ._dtypes import ARITHMETIC, ITEMSIZE, NEEDS_ELEMENTS, SEARCHES, check_input, partial_type
from ._inputs import read, require_framework
from ._layout import (View, axis_shape, contiguous_passes, dense_or_none, dense_view, is_c_contiguous,
                      result_shape)

AXIS = Entries("axis", " along dim=")
_ALIGN = 256  # bytes: where each partial result and the temp storage start in the one allocation
KEPT_BYTES = 1 << 20  # a single pass's temp storage up to this size comes from the stream's kept block


def normalize_dims(dim, ndim: int, op: str) -> tuple:
    """dim= as sorted non-negative dims: an int, a negative int, or a tuple or list of them (one
    int for argmin and argmax). A 0-d array takes 0 and -1, as PyTorch's reductions do."""
    if isinstance(dim, (tuple, list)):
        if op in SEARCHES:
            raise TypeError(f"{op} takes one dim (an int), not {dim!r}")
        given = tuple(dim)
    else:
        given = (dim,)
    rank = max(ndim, 1)
    dims: list = []
    for d in given:
        if isinstance(d, bool) or not hasattr(type(d), "__index__"):
            raise TypeError(f"dim= takes an int or a tuple of ints, not {type(d).__name__}")
        d = operator.index(d)
        if not -rank <= d < rank:
            raise IndexError(f"dim {d} is out of range for an array of {ndim} dims (expected {-rank} to {rank - 1})")
        d %= rank
        if d in dims:
            raise ValueError(f"dim {d} appears more than once in dim={dim!r}")
        dims.append(d)
    return tuple(sorted(dims))


class Along(NamedTuple):
    """How one call shape (op, layout, dim=, keepdim=, dtypes) runs, worked out once."""

    shape: tuple  # the result's
    whole: Optional[View]  # every dim of size above 1 reduced over one dense block: the full reduce's view
    plans: tuple  # the entry of each pass
    passes: tuple  # the AxisShape of each pass (over a C-order copy where `copied`)
    partials: tuple  # bytes of each pass's partial results but the last's, aligned
    copied: bool  # the layout is no pass over x: its framework copies it into C order first
    offset: int  # bytes from the data pointer (of x, or of its copy) to the first pass's first element
    on_device: dict  # device -> its Launches, filled in by launches()


class Launches(NamedTuple):
    """The passes of one Along on one device as the extension takes them: per pass (entry, its
    extents tuple, where its results go: an offset into the temp storage, or -1 for the result,
    its entry's temp bytes); the temp storage of the call, and where the entries' own part of it
    starts (after the partial results). The extents stay one tuple: nanobind's quickest dispatch
    takes at most 8 arguments, and six more ints cost more than the tuple's conversion."""

    steps: tuple
    scratch: int
    work_at: int
    keeps: bool  # one pass whose temp storage may come from the block kept for the stream (run_along)


_ALONG: dict = {}
_MAX_ALONG = 4096


def reduce_along(op: str, x, dim, keepdim: bool, dtype=None, out=None, stream=None):
    """`op` over dims `dim` of x (None or (): every dim, as the full reduce reads it), the result of
    the caller's framework."""
    handle = None if stream is None else stream_handle(stream)
    inp = read(x, "x", handle, strided=True)
    s = inp.view
    a = along_of(op, s, inp.family, dim, keepdim, dtype)
    if a.whole is not None:
        view = a.whole._replace(data=s.data + a.whole.data, device=s.device)
        return full_reduce_input(op, inp._replace(view=view), handle, dtype, out, a.shape)
    if a.copied and (inp.framework is None or not inp.framework.owns(x)):
        raise ValueError(f"x (shape {s.shape}, strides {s.strides} elements) cannot be reduced along dim={dim!r} in "
                         "place, and warpfold copies only PyTorch and CuPy arrays: make a contiguous copy first")
    target = None if out is None else checked_out(out, a.plans[-1].result, a.shape)
    device = device_of(inp, target)
    fw = require_framework(inp, "x")
    current = fw.current_stream(device)
    handle = launch_stream(inp, handle, current, device)
    with allocating_on(fw, handle, current, device):
        result = out if target is not None else fw.empty(a.shape, a.plans[-1].result, device)
        if a.passes[-1].outer * a.passes[-1].inner == 0:
            return to_caller(inp, out, result)  # no output: nothing to launch
        if a.copied:
            x = fw.contiguous(x)
            s = fw.strided(x, "x")
    sink = target.view.data if target is not None else fw.pointer(result)
    run_along(fw, launches(a, device), device, handle, s.data + a.offset, sink, handle == current)
    return to_caller(inp, out, result)


def along_of(op: str, s, family: str, dim, keepdim: bool, dtype) -> Along:
    """The Along of a call, from the cache where the same call shape ran before."""
    dims = tuple(dim) if isinstance(dim, list) else dim
    key = found = None
    if not _holds_bool(dims):  # a bool hashes as the int it equals: never cached, so always refused
        try:
            key = (op, s.shape, s.strides, s.dtype, family, dims, keepdim, dtype)
            found = _ALONG.get(key)
        except TypeError:  # an unhashable dim= or dtype=: worked out (and refused) below
            key = None
    if found is None:
        found = _work_out(op, s, family, dim, keepdim, dtype)
        if key is not None:
            if len(_ALONG) >= _MAX_ALONG:
                _ALONG.clear()
            _ALONG[key] = found
    return found


def _holds_bool(dims) -> bool:
    """Whether dim= (a list already a tuple) is or holds a bool."""
    return isinstance(dims, bool) or (isinstance(dims, tuple) and any(isinstance(d, bool) for d in dims))


def _work_out(op: str, s, family: str, dim, keepdim: bool, dtype) -> Along:
    check_input(s.dtype, op)
    if dim is None or (isinstance(dim, tuple) and not dim):  # every dim: the full reduce, as without dim=
        shape = result_shape(s.shape, range(len(s.shape)), keepdim)
        return Along(shape, dense_view(s._replace(data=0), "x"), (), (), (), False, 0, {})
    dims = normalize_dims(dim, len(s.shape), op)
    shape = result_shape(s.shape, dims, keepdim)
    if op in NEEDS_ELEMENTS and any(s.shape[d] == 0 for d in dims if d < len(s.shape)):
        raise ValueError(f"{op} along dim={dim!r} of an array of shape {s.shape}: the reduced dims hold no element")
    if all(size == 1 or d in dims for d, size in enumerate(s.shape)) and (op not in SEARCHES or shape == ()):
        view = dense_or_none(s._replace(data=0))  # data: the offset to add to the call's pointer
        if view is not None and (view.ordered or op not in SEARCHES):
            return Along(shape, view, (), (), (), False, 0, {})
    final = AXIS.plan(op, s.dtype, family, dtype)
    one_pass = axis_shape(s.shape, s.strides, dims, op not in SEARCHES)
    copied = one_pass is None and s.strides is not None and not is_c_contiguous(s.shape, s.strides)
    passes = [one_pass] if one_pass is not None else contiguous_passes(s.shape, dims)
    plans = _pass_plans(op, s.dtype, family, final, len(passes))
    partials = tuple(_aligned(a.outer * a.inner * ITEMSIZE[p.result]) for p, a in zip(plans[:-1], passes[:-1]))
    return Along(shape, None, tuple(plans), tuple(passes), partials, copied, passes[0].offset * s.itemsize, {})


def launches(a: Along, device: int) -> Launches:
    """The Launches of `a` on `device`, worked out at its first call there."""
    found = a.on_device.get(device)
    if found is None:
        found = a.on_device[device] = _launches_on(a, device)
    return found


def _launches_on(a: Along, device: int) -> Launches:
    sizes = [_temp_bytes(p.index, device, shape.extents) for p, shape in zip(a.plans, a.passes)]
    steps, at = [], 0
    for k, (p, shape, nbytes) in enumerate(zip(a.plans, a.passes, sizes)):
        last = k == len(a.passes) - 1
        steps.append((p.index, shape.extents, -1 if last else at, nbytes))
        at += 0 if last else a.partials[k]
    scratch = at + max(sizes)
    return Launches(tuple(steps), scratch, at, len(steps) == 1 and scratch <= KEPT_BYTES)


def run_along(fw, plan: Launches, device: int, handle: int, source: int, sink: int, on_current: bool) -> None:
    """Queues the passes of `plan` on `handle`, as run_full queues a full reduce: a single pass
    with the temp storage the framework keeps for the stream where it keeps one and no graph
    capture is under way, else with storage of this call's own."""
    if plan.keeps:
        kept = fw.kept_scratch(plan.scratch, device, handle)
        index, extents, _, nbytes = plan.steps[0]
        if kept and _ext.axis_run_kept(index, device, source, extents, sink, kept, nbytes, handle):
            return
    temp, held = fw.scratch(plan.scratch, device, handle, on_current)
    try:
        launch(plan, device, handle, source, sink, temp)
    finally:
        fw.release(held)


def launch(plan: Launches, device: int, handle: int, source: int, sink: int, temp: int) -> None:
    """Queues every pass on `handle`: `source` into partial results in `temp`, those into the
    next, the last into `sink`."""
    work = temp + plan.work_at
    for index, extents, into, nbytes in plan.steps:
        out = sink if into < 0 else temp + into
        _ext.axis_run(index, device, source, extents, out, work, nbytes, handle)
        source = out


def _pass_plans(op: str, dtype: str, family: str, final, count: int) -> list:
    """The entry of each pass: the input's type into partial results, partial results into
    partial results, and into the result last."""
    if count == 1:
        return [final]
    partial = partial_type(op, dtype, final.result)
    arithmetic = op in ARITHMETIC  # dtype= names the partials' and the result's type; min and max keep x's
    first = AXIS.plan(op, dtype, family, partial if arithmetic else None)
    middle = AXIS.plan(op, partial, family, partial if arithmetic else None)
    last = AXIS.plan(op, partial, family, final.result if arithmetic else None)
    return [first] + [middle] * (count - 2) + [last]


def _temp_bytes(index: int, device: int, extents: tuple) -> int:
    return AXIS.temp_bytes((index, device, extents), lambda: _ext.axis_temp_bytes(index, device, extents))


def _aligned(nbytes: int) -> int:
    return (nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
