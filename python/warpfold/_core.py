"""One full reduce: the plan (types and compiled entry), the checks, allocation and the launch.

Order of work: everything that needs no GPU (argument types, dtypes, layout, emptiness) first,
then the device and stream, then allocation through the caller's framework, then one launch.
Nothing waits for the GPU: the result is an array the kernel fills in stream order.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _warpfold as _ext
from ._dtypes import ARITHMETIC, NEEDS_ELEMENTS, SEARCHES, SUPPORTED, check_input, default_result, entry_key, normalize
from ._inputs import locate, read, require_framework

_ENTRIES = {key: index for index, key in enumerate(_ext.entry_keys())}
_PLANS: dict = {}
_TEMP_BYTES: dict = {}


class Plan(NamedTuple):
    index: int  # the compiled entry
    result: str  # the result's dtype
    search: bool  # argmin/argmax: the entry writes {value, index}, the result is the index


def plan(op: str, dtype: str, family: str, requested) -> Plan:
    key = (op, dtype, family, requested)
    try:
        return _PLANS[key]
    except KeyError:
        pass
    except TypeError:
        raise TypeError(f"dtype= must be a dtype, not {type(requested).__name__}") from None
    p = _PLANS[key] = _make_plan(op, dtype, family, requested)
    return p


def _make_plan(op: str, dtype: str, family: str, requested) -> Plan:
    check_input(dtype, op)
    if requested is None:
        result = default_result(op, dtype, family)
    elif op not in ARITHMETIC:
        raise TypeError(f"dtype= applies to sum and prod; {op} returns the input's dtype")
    else:
        result = normalize(requested)
    index = _ENTRIES.get(entry_key(op, dtype, result))
    if index is None:
        choices = [r for r in SUPPORTED if entry_key(op, dtype, r) in _ENTRIES]
        raise TypeError(f"{op} of {dtype} cannot return {result}: dtype= takes {', '.join(choices)} for {dtype} input")
    return Plan(index, result, op in SEARCHES)


def temp_bytes(index: int, device: int) -> int:
    key = (index, device)
    nbytes = _TEMP_BYTES.get(key)
    if nbytes is None:
        nbytes = _TEMP_BYTES[key] = _ext.temp_bytes(index, device)
    return nbytes


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


def full_reduce(op: str, x, dtype=None, out=None, stream=None):
    handle = None if stream is None else stream_handle(stream)
    inp = read(x, "x", handle)
    p = _checked_plan(op, inp.view, inp.family, dtype)
    target = None if out is None else _checked_out(out, p)
    device = _device(inp, target)
    fw = require_framework(inp, "x")
    current = fw.current_stream(device)
    handle = _stream(inp, handle, current, device)
    nbytes = temp_bytes(p.index, device)
    if handle == current:
        result, out_ptr, temp = _allocate(fw, p, nbytes, device, out, target)
    else:
        with fw.on_stream(handle, device):
            result, out_ptr, temp = _allocate(fw, p, nbytes, device, out, target)
    _ext.run(p.index, device, inp.view.data, inp.view.n, out_ptr, fw.pointer(temp), nbytes, handle)
    if out is None and inp.to_caller is not None:
        return inp.to_caller(result)
    return result


def _checked_plan(op: str, view, family: str, dtype) -> Plan:
    p = plan(op, view.dtype, family, dtype)
    if view.n == 0 and op in NEEDS_ELEMENTS:
        raise ValueError(f"{op} of an empty array: there is no element to return")
    if p.search and not view.ordered:
        raise ValueError(f"{op} counts flat indices in C order, and x is not C-contiguous: make a contiguous copy first")
    return p


def _device(inp, target) -> int:
    """The device of x, which out (if given) must share."""
    device = locate(inp, "x")
    if target is not None:
        out_device = locate(target, "out")
        if out_device != device:
            raise ValueError(f"out is on device {out_device}, x on device {device}: both must be on one device")
    return device


def _stream(inp, handle, current: int, device: int) -> int:
    """The stream to run on: stream= (after the producer's pending work), else the stream the
    producer named, else the framework's current one."""
    if handle is None:
        return current if inp.producer_stream is None else inp.producer_stream
    _check_stream_device(handle, device)
    if inp.producer_stream is not None and inp.producer_stream != handle:
        _ext.order_after(handle, inp.producer_stream)
    return handle


def _checked_out(out, p: Plan):
    if p.search:
        raise TypeError("argmin and argmax take no out=")
    target = read(out, "out")
    if target.view.dtype != p.result:
        raise TypeError(f"out has dtype {target.view.dtype}, the result is {p.result}")
    if target.view.n != 1:
        raise ValueError(f"out must hold exactly one element, not {target.view.n}")
    if not target.writable:
        raise ValueError("out is read-only")
    return target


def _allocate(fw, p: Plan, nbytes: int, device: int, out, target):
    """(result, where the kernel writes it, temp storage), from the framework on its current stream."""
    temp = fw.empty((nbytes,), "uint8", device)
    if target is not None:
        return out, target.view.data, temp
    if p.search:  # {value, index}: 16 bytes, the index in the second 8
        pair = fw.empty((2,), "int64", device)
        return pair[1], fw.pointer(pair), temp
    result = fw.empty((), p.result, device)
    return result, fw.pointer(result), temp
