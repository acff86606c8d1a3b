"""The plans (types and compiled entry), streams, allocation, and the full reduce.

Order of work: everything that needs no GPU (argument types, dtypes, layout, emptiness) first,
then the device and stream, then allocation through the caller's framework, then the launch.
Nothing waits for the GPU: the result is an array the kernel fills in stream order.

The per-call path of a full reduce does, after the first call of its kind, dictionary lookups
and the framework's own calls only: plans are kept per (op, dtype, family, dtype=), temp storage
sizes per (entry, device, shape).
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from . import _warpfold as _ext
from ._dtypes import ARITHMETIC, NEEDS_ELEMENTS, SEARCHES, SUPPORTED, check_input, default_result, entry_key, normalize
from ._inputs import locate, read, require_framework
from ._layout import is_c_contiguous


class Plan(NamedTuple):
    index: int  # the compiled entry
    result: str  # the result's dtype
    search: bool  # argmin/argmax: the entry writes positions (a full reduce: {value, index}, the result is the index)
    needs_elements: bool  # min, max, argmin, argmax: there is no result over no element


class Entries:
    """The compiled entries of one kind ("full", "axis" or "segmented"): their plans and their
    temp storage sizes, asked of the extension once per entry, device and shape."""

    MAX_SIZES = 4096  # temp sizes kept (a full reduce has one per entry and device; shapes vary)

    def __init__(self, kind: str, where: str):
        self.where = where  # how messages name the kind: "", " along dim=", " per segment"
        self.keys = {key: index for index, key in enumerate(_ext.entry_keys(kind))}
        self.plans: dict = {}
        self.sizes: dict = {}

    def plan(self, op: str, dtype: str, family: str, requested, suffix: str = "") -> Plan:
        """The entry for `op` over `dtype` with the caller's family and dtype=; `suffix` completes
        the key (the offsets' type of a segmented entry). TypeError where none is compiled."""
        key = (op, dtype, family, requested, suffix)
        try:
            return self.plans[key]
        except KeyError:
            pass
        except TypeError:
            raise TypeError(f"dtype= must be a dtype, not {type(requested).__name__}") from None
        p = self.plans[key] = self._make_plan(op, dtype, family, requested, suffix)
        return p

    def _make_plan(self, op: str, dtype: str, family: str, requested, suffix: str) -> Plan:
        check_input(dtype, op)
        if requested is None:
            result = default_result(op, dtype, family)
        elif op not in ARITHMETIC:
            raise TypeError(f"dtype= applies to sums and products; {op} returns the input's dtype")
        else:
            result = normalize(requested)
        index = self.keys.get(entry_key(op, dtype, result) + suffix)
        if index is not None:
            return Plan(index, result, op in SEARCHES, op in NEEDS_ELEMENTS)
        choices = [r for r in SUPPORTED if entry_key(op, dtype, r) + suffix in self.keys]
        if choices:
            raise TypeError(f"{op}{self.where} of {dtype} cannot return {result}: dtype= takes {', '.join(choices)} "
                            f"for {dtype} input")
        inputs = [d for d in SUPPORTED if any(entry_key(op, d, r) + suffix in self.keys for r in SUPPORTED)]
        whole = ", or reduce every element (dim=None)" if self is not FULL else ""
        raise TypeError(f"{op}{self.where} is compiled for {', '.join(inputs) or 'no dtype'}, not {dtype}: "
                        f"convert the input to one of them{whole}")

    def temp_bytes(self, key: tuple, ask) -> int:
        """The temp storage size under `key` (entry, device, shape...), from ask() the first time."""
        nbytes = self.sizes.get(key)
        if nbytes is None:
            if len(self.sizes) >= self.MAX_SIZES:
                self.sizes.clear()
            nbytes = self.sizes[key] = ask()
        return nbytes


FULL = Entries("full", "")
_FULL_PLANS = FULL.plans
_FULL_SIZES = FULL.sizes


def plan(op: str, dtype: str, family: str, requested) -> Plan:
    """The full reduce's plan."""
    return FULL.plan(op, dtype, family, requested)


def temp_bytes(index: int, device: int) -> int:
    """The full reduce's temp storage on `device` (fixed per entry and device)."""
    key = (index, device)
    nbytes = _FULL_SIZES.get(key)
    if nbytes is None:
        nbytes = _FULL_SIZES[key] = _ext.temp_bytes(index, device)
    return nbytes


# --- streams ---------------------------------------------------------------------------------------

def stream_handle(stream) -> int:
    """The CUDA stream handle of stream=: an int, or an object with __cuda_stream__, .cuda_stream
    (PyTorch) or .ptr (CuPy)."""
    handle = stream
    if not isinstance(stream, int):
        protocol = getattr(stream, "__cuda_stream__", None)
        if callable(protocol):
            handle = protocol()[1]
        else:
            handle = getattr(stream, "cuda_stream", getattr(stream, "ptr", None))
    if isinstance(handle, bool) or not isinstance(handle, int) or handle < 0:
        raise TypeError("stream= takes a CUDA stream: an int handle, a torch.cuda.Stream, a cupy.cuda.Stream or an "
                        f"object with __cuda_stream__, not {type(stream).__name__}")
    return handle


def _check_stream_device(handle: int, device: int) -> None:
    if handle <= 2:  # 0: the legacy default stream, 1 and 2: the legacy and per-thread defaults; any device
        return
    stream_device = _ext.stream_device(handle)
    if stream_device != device:
        raise ValueError(f"stream= belongs to device {stream_device}, x is on device {device}")


def launch_stream(inp, handle, current: int, device: int) -> int:
    """The stream to run on: stream= (after the producer's pending work), else the stream the
    producer named, else the framework's current one."""
    if handle is None:
        return current if inp.producer_stream is None else inp.producer_stream
    _check_stream_device(handle, device)
    if inp.producer_stream is not None and inp.producer_stream != handle:
        _ext.order_after(handle, inp.producer_stream)
    return handle


def allocating_on(fw, handle: int, current: int, device: int):
    """The scope in which the framework allocates for (and copies on) stream `handle`."""
    return contextlib.nullcontext() if handle == current else fw.on_stream(handle, device)


def to_caller(inp, out, result):
    """The result as the caller's array type (JAX), where it is not the framework's own."""
    return inp.to_caller(result) if out is None and inp.to_caller is not None else result


def device_of(inp, target) -> int:
    """The device of x, which out (if given) must share."""
    device = locate(inp, "x")
    if target is not None:
        out_device = locate(target, "out")
        if out_device != device:
            raise ValueError(f"out is on device {out_device}, x on device {device}: both must be on one device")
    return device


def checked_out(out, result: str, shape: tuple):
    """out= read and checked: the result's dtype, `shape` (or one element for a 0-d result), C
    order, writable."""
    target = read(out, "out", strided=True)
    s = target.view
    if s.dtype != result:
        raise TypeError(f"out has dtype {s.dtype}, the result is {result}")
    if shape == ():
        if s.n != 1:
            raise ValueError(f"out must hold exactly one element, not {s.n}")
    elif s.shape != shape:
        raise ValueError(f"out has shape {s.shape}, the result has shape {shape}")
    elif s.strides is not None and not is_c_contiguous(s.shape, s.strides):
        raise ValueError("out must be C-contiguous")
    if not target.writable:
        raise ValueError("out is read-only")
    return target


# --- the full reduce ---------------------------------------------------------------------------------

def full_reduce(op: str, x, dtype=None, out=None, stream=None):
    """`op` over every element of x, a 0-d result."""
    handle = None if stream is None else stream_handle(stream)
    return full_reduce_input(op, read(x, "x", handle), handle, dtype, out, ())


def full_reduce_input(op: str, inp, handle, dtype, out, shape: tuple):
    """`op` over every element of an input read as one dense block; the result has `shape` (()
    or all ones, for keepdim)."""
    view = inp.view
    try:
        p = _FULL_PLANS[(op, view.dtype, inp.family, dtype, "")]
    except (KeyError, TypeError):
        p = FULL.plan(op, view.dtype, inp.family, dtype)
    if p.needs_elements and view.n == 0:
        raise ValueError(f"{op} of an empty array: there is no element to return")
    if p.search and not view.ordered:
        raise ValueError(f"{op} counts flat indices in C order, and x is not C-contiguous: make a contiguous copy first")
    target = None
    if out is not None:
        if p.search:
            raise TypeError("argmin and argmax take no out=")
        target = checked_out(out, p.result, shape)
    device = view.device if view.device >= 0 and target is None else device_of(inp, target)
    fw = inp.framework or require_framework(inp, "x")
    current = fw.current_stream(device)
    if handle is not None or inp.producer_stream is not None:
        handle = launch_stream(inp, handle, current, device)
    else:
        handle = current
    nbytes = _FULL_SIZES.get((p.index, device)) or temp_bytes(p.index, device)
    on_current = handle == current
    if on_current:
        result, out_ptr = _result(fw, p, device, out, target, shape)
    else:
        with fw.on_stream(handle, device):
            result, out_ptr = _result(fw, p, device, out, target, shape)
    run_full(fw, p.index, device, view.data, view.n, out_ptr, nbytes, handle, on_current)
    return result if inp.to_caller is None or out is not None else inp.to_caller(result)


def run_full(fw, index: int, device: int, data: int, n: int, out: int, nbytes: int, handle: int,
             on_current: bool) -> None:
    """Queues full-reduce entry `index` on `handle`: with the temp storage the framework keeps
    for the stream where it keeps one and no graph capture is under way, else with storage of
    this call's own."""
    kept = fw.kept_scratch(nbytes, device, handle)
    if kept and _ext.run(index, device, data, n, out, kept, nbytes, handle, True):
        return
    temp, held = fw.scratch(nbytes, device, handle, on_current)
    try:
        _ext.run(index, device, data, n, out, temp, nbytes, handle)
    finally:
        fw.release(held)


def _result(fw, p: Plan, device: int, out, target, shape: tuple):
    """(result, where the kernel writes it), from the framework on its current stream."""
    if target is not None:
        return out, target.view.data
    if p.search:  # {value, index}: 16 bytes, the index in the second 8
        pair = fw.empty((2,), "int64", device)
        return (pair[1] if shape == () else pair[1:].reshape(shape)), fw.pointer(pair)
    result = fw.empty(shape, p.result, device)
    return result, fw.pointer(result)
