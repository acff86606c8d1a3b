"""Reductions per segment: warpfold::segmented_reduce over CSR offsets, with the input's length so
that every offset is clamped into the input."""

from __future__ import annotations

from . import _warpfold as _ext
from ._core import Entries, allocating_on, launch_stream, stream_handle, to_caller
from ._inputs import locate, read, require_framework
from ._layout import dense_or_none

SEGMENTED = Entries("segmented", " per segment")
OFFSET_TYPES = ("int32", "int64")


def segmented_reduce(op: str, x, offsets, dtype=None, stream=None):
    """`op` over x[offsets[s]:offsets[s + 1]] of the flat (C-order) x, for every segment s."""
    handle = None if stream is None else stream_handle(stream)
    inp = read(x, "x", handle, strided=True)
    offs = read(offsets, "offsets", handle, strided=True)
    bounds = _checked_offsets(offs.view)
    p = SEGMENTED.plan(op, inp.view.dtype, inp.family, dtype, "/" + bounds.dtype)
    view = dense_or_none(inp.view)
    copied = view is None or not view.ordered
    if copied and (inp.framework is None or not inp.framework.owns(x)):
        raise ValueError(f"{op} reads x in C order, and x is not C-contiguous: make a contiguous copy first")
    device = locate(inp, "x")
    offsets_device = locate(offs, "offsets")
    if offsets_device != device:
        raise ValueError(f"offsets is on device {offsets_device}, x on device {device}: both must be on one device")
    fw = require_framework(inp, "x")
    current = fw.current_stream(device)
    handle = launch_stream(inp, handle, current, device)
    if offs.producer_stream is not None and offs.producer_stream != handle:
        _ext.order_after(handle, offs.producer_stream)
    segments = bounds.n - 1
    with allocating_on(fw, handle, current, device):
        result = fw.empty((segments,), p.result, device)
        if segments == 0:
            return to_caller(inp, None, result)
        if copied:
            x = fw.contiguous(x)
            view = fw.describe(x, "x")
    nbytes = SEGMENTED.temp_bytes((p.index, device, view.n, segments),
                                  lambda: _ext.segmented_temp_bytes(p.index, device, view.n, segments))
    temp, held = fw.scratch(nbytes, device, handle, handle == current)
    try:
        _ext.segmented_run(p.index, device, view.data, view.n, fw.pointer(result), segments, bounds.data, temp, nbytes,
                           handle)
    finally:
        fw.release(held)
    return to_caller(inp, None, result)


def _checked_offsets(bounds):
    """offsets as a Strided array of num_segments + 1 int32 or int64 boundaries, one after another."""
    if bounds.dtype not in OFFSET_TYPES:
        raise TypeError(f"offsets must be int32 or int64 (CSR boundaries), not {bounds.dtype}")
    if len(bounds.shape) != 1:
        raise ValueError(f"offsets must be one-dimensional (num_segments + 1 boundaries), not of shape {bounds.shape}")
    if bounds.n == 0:
        raise ValueError("offsets is empty: it holds num_segments + 1 boundaries, at least one")
    if bounds.strides is not None and bounds.n > 1 and bounds.strides[0] != 1:
        raise ValueError("offsets must be contiguous (stride 1)")
    return bounds
