"""The per-call fast path: PyTorch tensors and CuPy arrays of exactly the framework's own type,
called without out= or stream=.

A call reads a few attributes of the array, finds what it runs in one dictionary (keyed by op,
dtype, dtype= and device; along dims also by shape, strides, dim and keepdim), allocates its
result and temp storage through the framework on its current stream and launches: no Input, View
or Strided objects, no reader, framework or stream lookups. Whatever it does not serve goes the
general way (_core.full_reduce, _axis.reduce_along), which reads and checks everything: arrays
on the host, on another device than the current one (CuPy; PyTorch along dims), not
C-contiguous (full reduces) or needing a copy (along dims), argmin and argmax along dims that
the full reduce runs, an empty min or argmin, dim= as a tuple, dtypes without an entry and every
call whose first run raises. So results, errors and their order are the general path's, and the
plans it keeps are the general path's own, looked up once per key.

PyTorch's full() and along() run in C++ once their call's template is kept (_ext.dispatch,
python/src/fast_calls.cpp, given TorchCalls.served_full and served_along): the same calls in the
same order, without a Python frame. Every other case goes to full() or along() itself, after x's
attributes were read once already.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional

from . import _warpfold as _ext
from ._axis import Launches, along_of, launch, launches, reduce_along
from ._core import FULL, full_reduce, run_full, temp_bytes
from ._frameworks import cupy_framework, torch_framework

MAX_CALLS = 4096  # call shapes kept per framework and kind (cleared when full)


class FullCall(NamedTuple):
    """A full reduce of one (op, dtype, dtype=, device)."""

    index: int  # the compiled entry
    result: Any  # the result's dtype, as the framework names it
    temp_bytes: int
    search: bool  # argmin/argmax: the entry writes {value, index}; the result is the index
    needs_elements: bool  # min, max, argmin, argmax: none over no element
    like: Any = None  # what the entry's output is made like (TorchCalls.like_of), or None


class AlongCall(NamedTuple):
    """A reduction along dims of one call shape (op, dtype, shape, strides, dim=, keepdim=,
    dtype=, device) that runs in passes over x itself."""

    shape: tuple  # the result's
    result: Any  # the result's dtype, as the framework names it
    launches: Optional[Launches]  # None: the result has no element, or `whole` runs it
    offset: int  # bytes from x's data pointer to the first element read
    whole: Optional[tuple]  # (entry, temp bytes, elements) of the full reduce that runs the call
    like: Any = None  # what the result is made like (TorchCalls.with_result_like), or None


class FastCalls:
    """What both frameworks' fast paths share: the calls they serve, worked out by the general
    path at the first call of each key."""

    served_full = None  # what _ext.dispatch needs to serve full()'s calls itself, where it can
    served_along = None  # and along()'s

    def __init__(self, fw):
        self.fw = fw
        self.full_calls: dict = {}
        self.along_calls: dict = {}

    def result_dtype(self, name: str):
        raise NotImplementedError

    def full_call(self, key: tuple, op: str, dtype: Optional[str], requested, device: int) -> Optional[FullCall]:
        """The FullCall of a first call, kept under `key`; None where the general path must run
        it (it raises)."""
        try:
            p = FULL.plan(op, dtype, self.fw.family, requested)
        except (TypeError, ValueError):
            return None
        call = FullCall(p.index, self.result_dtype(p.result), temp_bytes(p.index, device), p.search, p.needs_elements)
        return _kept(self.full_calls, key, call)

    def along_call(self, key: tuple, op: str, x, dim: int, keepdim: bool, requested,
                   device: int) -> Optional[AlongCall]:
        """The AlongCall of a first call, kept under `key`; None (kept too) for a layout the general
        path runs otherwise (as the full reduce, or after a copy), None (not kept) for a call that
        raises there."""
        try:
            strided = self.fw.strided(x, "x")
            a = along_of(op, strided, self.fw.family, dim, keepdim, requested)
            dtype_name = strided.dtype
        except (TypeError, ValueError, IndexError):
            return None
        call = None
        if a.whole is not None:
            call = self.whole_call(op, a, dtype_name, requested, device)
        elif not a.copied:
            last = a.passes[-1]
            plan = launches(a, device) if last.outer * last.inner else None
            call = AlongCall(a.shape, self.result_dtype(a.plans[-1].result), plan, a.offset, None)
        return _kept(self.along_calls, key, call)

    def whole_call(self, op: str, a, dtype_name: str, requested, device: int) -> Optional[AlongCall]:
        """The AlongCall of a call that the full reduce runs over one dense block (every dim of
        size above 1 reduced); None where the general path runs it (argmin and argmax, whose
        result is a flat index, and an empty min or max, which raises)."""
        try:
            p = FULL.plan(op, dtype_name, self.fw.family, requested)
        except (TypeError, ValueError):
            return None
        if p.search or (p.needs_elements and a.whole.n == 0):
            return None
        whole = (p.index, temp_bytes(p.index, device), a.whole.n)
        return AlongCall(a.shape, self.result_dtype(p.result), None, a.whole.data, whole)


def _kept(cache: dict, key: tuple, call):
    if len(cache) >= MAX_CALLS:
        cache.clear()
    try:
        cache[key] = call
    except TypeError:  # an unhashable dtype= (which the general path refuses): nothing kept
        pass
    return call


class TorchCalls(FastCalls):
    """torch.Tensor: results made as the general path makes them (Torch.made_like), like the
    device's template (expanded once per call shape), kept in the call once the template is;
    temp storage as the general path takes it: the block kept for the stream
    (Torch.kept_scratch) for a full reduce or a single pass along dims, else a block of the
    caching allocator on x's device. Calls along dims require x's device to be the current one, as
    their temp storage is a raw block of the current device."""

    def __init__(self, fw):
        super().__init__(fw)
        self.current_stream = fw.current_stream  # a raw handle
        self.current_device = fw._get_device
        self.alloc, self.free = fw._raw_alloc, fw._raw_delete
        self.kept = fw.kept
        self.templates, self.empty_like = fw.templates, fw.torch.empty_like
        self.made_like = fw.made_like
        # what _ext.dispatch needs to run full() and along() in C++ once the call's template is kept:
        # the same calls in the same order (run_full, run_along or run_along_own where the kept
        # block cannot serve); along's state begins as full's, then has its own
        self.served_full = (self.full_calls, self.kept, self.current_stream, self.empty_like, run_full, fw)
        self.served_along = (self.along_calls,) + self.served_full[1:] + (self.current_device, self.run_along,
                                                                           self.run_along_own)

    def run(self, index: int, device: int, data: int, n: int, out: int, nbytes: int, stream: int) -> None:
        """Queues a full reduce on the current stream: its kept block where it holds nbytes and no
        capture is under way (one dictionary lookup), else as the general path runs it."""
        held = self.kept.get((device, stream))
        if held is None or held[1] < nbytes or not _ext.run(index, device, data, n, out, held[0], nbytes, stream, True):
            run_full(self.fw, index, device, data, n, out, nbytes, stream, True)

    def result_dtype(self, name: str):
        return self.fw.dtypes[name]

    def like_of(self, shape: tuple, result, device: int):
        """What a result of `shape` and dtype `result` is made like, once the device's template is
        kept: the view of it that Torch.made_like makes such results from (Torch.template_view),
        or None where there is none."""
        template = self.templates.get((device, result))
        return None if template is None else self.fw.template_view(template, shape)

    def with_result_like(self, call: AlongCall, device: int) -> AlongCall:
        """`call` with its results made like_of their shape, where they can be."""
        like = self.like_of(call.shape, call.result, device)
        return call if like is None else call._replace(like=like)

    def run_along(self, plan: Launches, device: int, data: int, out: int) -> None:
        """Queues the passes of `plan` on the current stream as _axis.run_along does: one pass
        with its kept block (one dictionary lookup) where it holds the temp storage and no capture
        is under way."""
        stream = self.current_stream(device)
        if plan.keeps:
            held = self.kept.get((device, stream))
            kept = held[0] if held is not None and held[1] >= plan.scratch else self.fw.kept_scratch(
                plan.scratch, device, stream)
            index, extents, _, nbytes = plan.steps[0]
            if kept and _ext.axis_run_kept(index, device, data, extents, out, kept, nbytes, stream):
                return
        self.run_along_own(plan, device, stream, data, out)

    def run_along_own(self, plan: Launches, device: int, stream: int, data: int, out: int) -> None:
        """Queues the passes of `plan` on `stream` with temp storage of their own."""
        temp = self.alloc(plan.scratch, stream)
        try:
            launch(plan, device, stream, data, out, temp)
        finally:
            self.free(temp)

    def full(self, op: str, x, requested):
        if x.is_cuda and x.is_contiguous():
            device = x.get_device()
            key = (op, x.dtype, requested, device)
            try:
                call = self.full_calls[key]
            except (KeyError, TypeError):  # a first call, or an unhashable dtype=
                call = self.full_call(key, op, self.fw.names.get(x.dtype), requested, device)
            n = x.numel()
            # on any device: the result, its stream and the kept block are x's device's, and
            # run_full allocates on that device where it is not the current one
            if call is not None and (n or not call.needs_elements):
                index, result, nbytes, search, _, like = call
                stream = self.current_stream(device)
                if like is not None:
                    answer = self.empty_like(like)
                else:  # a first call (which makes the template), or one whose result is made otherwise
                    shape = (2,) if search else ()
                    answer = self.made_like(shape, result, device)
                    like = self.like_of(shape, result, device)
                    if like is not None:
                        _kept(self.full_calls, key, call._replace(like=like))
                # self.run's body inline, a Python frame less per call
                held = self.kept.get((device, stream))
                data, out = x.data_ptr(), answer.data_ptr()
                ran = held is not None and held[1] >= nbytes and _ext.run(index, device, data, n, out, held[0],
                                                                          nbytes, stream, True)
                if not ran:
                    run_full(self.fw, index, device, data, n, out, nbytes, stream, True)
                return answer[1] if search else answer
        return full_reduce(op, x, requested)

    def along(self, op: str, x, dim, keepdim: bool, requested):
        if type(dim) is int and x.is_cuda:  # not a bool, which would share an int's key
            device = x.get_device()
            key = (op, x.dtype, x.shape, x.stride(), dim, keepdim, requested, device)
            try:
                call = self.along_calls[key]
            except (KeyError, TypeError):  # a first call, or an unhashable dtype=
                call = self.along_call(key, op, x, dim, keepdim, requested, device)
            if call is not None and self.current_device() == device:
                shape, result, plan, offset, whole, like = call
                if like is not None:
                    answer = self.empty_like(like)
                else:  # a first call (which makes the template), or one whose result is made otherwise
                    answer = self.made_like(shape, result, device)
                    _kept(self.along_calls, key, self.with_result_like(call, device))
                if whole is not None:
                    index, nbytes, n = whole
                    self.run(index, device, x.data_ptr() + offset, n, answer.data_ptr(), nbytes,
                             self.current_stream(device))
                elif plan is not None:
                    self.run_along(plan, device, x.data_ptr() + offset, answer.data_ptr())
                return answer
        return reduce_along(op, x, dim, keepdim, requested)


class CuPyCalls(FastCalls):
    """cupy.ndarray: results from the ndarray constructor (cupy.empty without its Python frame),
    temp storage from the memory pool, on the current device's current stream."""

    def __init__(self, fw):
        super().__init__(fw)
        cupy = fw.cupy
        self.ndarray = cupy.ndarray
        self.alloc = cupy.cuda.alloc
        self.current_device = fw.runtime.getDevice
        self.current_stream = cupy.cuda.get_current_stream  # the current device's

    def result_dtype(self, name: str):
        return self.fw._dtypes.get(name) or self.fw._dtype(name)

    def full(self, op: str, x, requested):
        if x._c_contiguous:
            memory = x.data
            device = memory.device_id
            dtype = x.dtype
            key = (op, dtype, requested, device)
            try:
                call = self.full_calls[key]
            except (KeyError, TypeError):  # a first call, or an unhashable dtype=
                call = self.full_call(key, op, dtype.name, requested, device)
            n = x.size
            if call is not None and (n or not call.needs_elements) and self.current_device() == device:
                index, result, nbytes, search, _, _ = call
                answer = self.ndarray((2,) if search else (), result)
                temp = self.alloc(nbytes)  # back to the pool when dropped, after the launch is queued
                _ext.run(index, device, memory.ptr, n, answer.data.ptr, temp.ptr, nbytes, self.current_stream().ptr)
                return answer[1] if search else answer
        return full_reduce(op, x, requested)

    def along(self, op: str, x, dim, keepdim: bool, requested):
        if type(dim) is int:  # not a bool, which would share an int's key
            memory = x.data
            device = memory.device_id
            key = (op, x.dtype, x.shape, x.strides, dim, keepdim, requested, device)
            try:
                call = self.along_calls[key]
            except (KeyError, TypeError):  # a first call, or an unhashable dtype=
                call = self.along_call(key, op, x, dim, keepdim, requested, device)
            if call is not None and self.current_device() == device:
                shape, result, plan, offset, whole, _ = call
                answer = self.ndarray(shape, result)
                if whole is not None:
                    index, nbytes, n = whole
                    temp = self.alloc(nbytes)
                    _ext.run(index, device, memory.ptr + offset, n, answer.data.ptr, temp.ptr, nbytes,
                             self.current_stream().ptr)
                elif plan is not None:
                    temp = self.alloc(plan.scratch)
                    launch(plan, device, self.current_stream().ptr, memory.ptr + offset, answer.data.ptr, temp.ptr)
                return answer
        return reduce_along(op, x, dim, keepdim, requested)


FAST: dict = {}  # type -> its FastCalls, or False for a type the general path reads


def calls_for(cls) -> Any:
    """The fast path of arrays of exactly type `cls` (False where there is none), kept in FAST."""
    calls: Any = False
    torch, cupy = sys.modules.get("torch"), sys.modules.get("cupy")
    if torch is not None and cls is torch.Tensor:
        fw = torch_framework()
        if fw._raw_alloc is not None:  # else temp storage needs a tensor: the general path
            calls = TorchCalls(fw)
    elif cupy is not None and cls is cupy.ndarray and _cupy_attributes(cupy):
        calls = CuPyCalls(cupy_framework())
    FAST[cls] = calls
    return calls


def _cupy_attributes(cupy) -> bool:
    """Whether this CuPy has the attributes the fast path reads (CuPy 8 and later)."""
    return hasattr(cupy.ndarray, "_c_contiguous") and hasattr(cupy.cuda.MemoryPointer, "device_id")
