"""The array frameworks warpfold allocates through: PyTorch and CuPy.

Each one reads its own arrays without a copy (describe), names its current stream on a device,
and allocates results and temp storage through its own allocator (PyTorch's caching allocator,
CuPy's memory pool), so that no call pays a cudaMalloc and graphs the framework captures stay
valid. Arrays of other producers (JAX, Numba, anything with __dlpack__ or
__cuda_array_interface__) get their results from whichever of the two is installed (fallback()).
"""

from __future__ import annotations

import contextlib
import functools

from . import _warpfold as _ext
from ._layout import Strided, View, make_strided, view_of


class Torch:
    family = "torch"
    name = "PyTorch"

    def __init__(self, torch=None):
        if torch is None:  # else a stand-in, in tests
            import torch

        self.torch = torch
        names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                 "float16", "bfloat16", "float32", "float64"]
        self.names = {getattr(torch, n): n for n in names if hasattr(torch, n)}
        self.dtypes = {n: d for d, n in self.names.items()}
        self._devices = {}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, without a Stream object
        self.current_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)
        # The caching allocator without a tensor around the block (torch.cuda.caching_allocator_alloc
        # without its Python checks): the same pools, the same stream order, graph captures included.
        self._raw_alloc = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_alloc", None)
        self._raw_delete = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_delete", None)
        self._get_device = getattr(torch._C, "_cuda_getDevice", None)
        if self._raw_delete is None or self._get_device is None:
            self._raw_alloc = None
        self.kept: dict = {}  # (device, stream) -> (address, bytes): kept_scratch's blocks
        self.templates: dict = {}  # (device, torch dtype) -> the 0-d tensor made_like makes results like

    def describe(self, x, what: str) -> View:
        if not x.is_cuda:
            raise self._on_host(x, what)
        dtype = self.names.get(x.dtype) or str(x.dtype).replace("torch.", "")
        if x.is_contiguous():
            return View(x.data_ptr(), x.numel(), dtype, x.get_device(), True)
        return view_of(x.data_ptr(), x.shape, x.stride(), x.element_size(), dtype, x.get_device(), what)

    def strided(self, x, what: str) -> Strided:
        if not x.is_cuda:
            raise self._on_host(x, what)
        dtype = self.names.get(x.dtype) or str(x.dtype).replace("torch.", "")
        return make_strided(x.data_ptr(), x.shape, x.stride(), x.element_size(), dtype, x.get_device())

    @staticmethod
    def _on_host(x, what: str) -> TypeError:
        return TypeError(f"{what} is a torch tensor on {x.device}: warpfold reduces arrays in CUDA device memory "
                         f"(move it with {what}.cuda())")

    def owns(self, x) -> bool:
        return isinstance(x, self.torch.Tensor)

    @staticmethod
    def contiguous(x):
        """A C-contiguous copy, made on the current stream."""
        return x.contiguous()

    def device(self, index: int):
        d = self._devices.get(index)
        if d is None:
            d = self._devices[index] = self.torch.device("cuda", index)
        return d

    def current_device(self) -> int:
        return self.torch.cuda.current_device()

    def empty(self, shape, dtype: str, device: int):
        return self.made_like(tuple(shape), self.dtypes[dtype], device)

    def scalar(self, dtype, device: int):
        """An uninitialised 0-d tensor of `dtype` (a torch dtype) on `device` (made_like)."""
        return self.made_like((), dtype, device)

    def made_like(self, shape: tuple, dtype, device: int):
        """An uninitialised C-contiguous tensor of `shape` and `dtype` (a torch dtype) on `device`,
        from the current stream's pool: torch.empty_like of the device's template as template_view
        shapes it, which reads one argument where torch.empty reads three. Where the template
        cannot be kept, the tensor made for it is a 0-d result; a result of any other shape, and
        one that template_view refuses, is made by torch.empty."""
        like = self.templates.get((device, dtype))
        if like is None:
            like, kept = self.template(dtype, device)
            if not kept:
                return like if shape == () else self.torch.empty(shape, dtype=dtype, device=self.device(device))
        view = self.template_view(like, shape)
        if view is None:
            return self.torch.empty(shape, dtype=dtype, device=self.device(device))
        return self.torch.empty_like(view)

    @classmethod
    def template_view(cls, template, shape: tuple):
        """What torch.empty_like makes a result of `shape` from, given the device's 0-d `template`,
        so that the result is laid out as torch.empty lays it out: the template itself for a 0-d
        result; the template expanded to `shape` where expands_to says so; a view of it where every
        dim is 1 (one element), whose strides are torch.empty's where the expanded view's would be
        0. None where a dim is 0 and none is 2 or more: empty_like would keep the expanded view's
        strides of 0, and a view of the template keeps its one element."""
        if not shape:
            return template
        if cls.expands_to(shape):
            return template.expand(shape)
        return template.view(shape) if all(size == 1 for size in shape) else None

    @staticmethod
    def expands_to(shape: tuple) -> bool:
        """Whether empty_like of a 0-d tensor expanded to `shape` lays it out as torch.empty does:
        where a dim holds 2 or more (the view is not dense: empty_like keeps the order of its
        strides, all 0, so C order). With every dim 0 or 1 it is dense, and empty_like would keep
        its strides of 0."""
        return any(size >= 2 for size in shape)

    def template(self, dtype, device: int):
        """(the 0-d tensor of `dtype` on `device` that results are made like, whether it is kept):
        kept per (device, dtype) from the first call on; not kept where it is made while the stream
        captures a graph, since the capture's pool owns its memory, nor where it is not a plain
        tensor (a tracing mode's stand-in)."""
        like = self.templates.get((device, dtype))
        if like is not None:
            return like, True
        fresh = self.torch.empty((), dtype=dtype, device=self.device(device))
        if type(fresh) is not self.torch.Tensor or _ext.capturing(self.current_stream(device)):
            return fresh, False
        self.templates[(device, dtype)] = fresh
        return fresh, True

    @staticmethod
    def pointer(array) -> int:
        return array.data_ptr()

    def scratch(self, nbytes: int, device: int, stream: int, on_current: bool):
        """Temp storage for one call on `stream` (on_current: the framework's current stream):
        (its address, what release() takes once the call is queued)."""
        if self._raw_alloc is not None and self._get_device() == device:
            address = self._raw_alloc(nbytes, stream)
            return address, address
        with contextlib.nullcontext() if on_current else self.on_stream(stream, device):
            block = self.empty((nbytes,), "uint8", device)
        return block.data_ptr(), block

    def release(self, held) -> None:
        """Frees scratch() storage: PyTorch reuses it in its stream's order, after the queued call."""
        if isinstance(held, int):
            self._raw_delete(held)

    def kept_scratch(self, nbytes: int, device: int, stream: int) -> int:
        """Temp storage kept for every call on `stream` of `device` (the current device), so that a
        small reduce pays no allocation: the calls on one stream run one after another, so they
        can share it. Its address, or 0 where there is none to keep (no raw allocator, another
        device current, a graph capture under way, whose pool would own it). A larger request
        replaces the block, freed in the stream's order. Blocks stay for the life of the process,
        one per stream used, as PyTorch keeps its cuBLAS workspaces."""
        held = self.kept.get((device, stream))
        if held is not None and held[1] >= nbytes:
            return held[0]
        if self._raw_alloc is None or self._get_device() != device or _ext.capturing(stream):
            return 0
        address = self._raw_alloc(nbytes, stream)
        if held is not None:
            self._raw_delete(held[0])
        self.kept[(device, stream)] = (address, nbytes)
        return address

    def on_stream(self, stream: int, device: int):
        """Allocations inside belong to `stream` (PyTorch reuses their memory in that stream's order)."""
        return self.torch.cuda.stream(self.torch.cuda.ExternalStream(stream, device=self.device(device)))


class CuPy:
    family = "numpy"
    name = "CuPy"

    def __init__(self, cupy=None):
        if cupy is None:  # else a stand-in, in tests
            import cupy

        self.cupy = cupy
        self.runtime = cupy.cuda.runtime
        self._dtypes = {}

    def describe(self, x, what: str) -> View:
        dtype = x.dtype.name
        if x.flags.c_contiguous:
            return View(x.data.ptr, x.size, dtype, x.device.id, True)
        itemsize = x.itemsize
        return view_of(x.data.ptr, x.shape, [s // itemsize for s in x.strides], itemsize, dtype, x.device.id, what)

    @staticmethod
    def strided(x, what: str) -> Strided:
        itemsize = x.itemsize
        return make_strided(x.data.ptr, x.shape, [s // itemsize for s in x.strides], itemsize, x.dtype.name,
                            x.device.id)

    def owns(self, x) -> bool:
        return isinstance(x, self.cupy.ndarray)

    def contiguous(self, x):
        """A C-contiguous copy, made on the current stream of x's device."""
        with self.cupy.cuda.Device(x.device.id):
            return self.cupy.ascontiguousarray(x)

    def current_stream(self, device: int) -> int:
        try:
            return self.cupy.cuda.get_current_stream(device).ptr
        except TypeError:  # CuPy before 13 names the current device's stream only
            return self.cupy.cuda.get_current_stream().ptr

    def current_device(self) -> int:
        return self.runtime.getDevice()

    def empty(self, shape, dtype: str, device: int):
        dtype = self._dtypes.get(dtype) or self._dtype(dtype)
        if self.runtime.getDevice() == device:
            return self.cupy.empty(shape, dtype=dtype)
        with self.cupy.cuda.Device(device):
            return self.cupy.empty(shape, dtype=dtype)

    def _dtype(self, name: str):
        """The NumPy dtype for a name; bfloat16 comes from ml_dtypes, as CuPy's own does."""
        import numpy

        try:
            found = numpy.dtype(name)
        except TypeError:
            import ml_dtypes

            found = numpy.dtype(getattr(ml_dtypes, name))
        self._dtypes[name] = found
        return found

    @staticmethod
    def pointer(array) -> int:
        return array.data.ptr

    def scratch(self, nbytes: int, device: int, stream: int, on_current: bool):
        """Temp storage for one call on `stream`: a block of CuPy's memory pool, without an array
        around it; (its address, the block, freed when dropped after the call is queued)."""
        if on_current and self.runtime.getDevice() == device:
            block = self.cupy.cuda.alloc(nbytes)
        else:
            with self.on_stream(stream, device):
                block = self.cupy.cuda.alloc(nbytes)
        return block.ptr, block

    @staticmethod
    def release(held) -> None:
        """Nothing to do: the pool takes the block back when the caller drops it."""

    @staticmethod
    def kept_scratch(nbytes: int, device: int, stream: int) -> int:
        """None kept: a CuPy stream may be destroyed and its handle given to another, so every
        call takes a block of the pool (scratch)."""
        return 0

    def on_stream(self, stream: int, device: int):
        """Allocations inside come from `stream`'s part of CuPy's memory pool."""
        scope = contextlib.ExitStack()
        scope.enter_context(self.cupy.cuda.Device(device))
        scope.enter_context(self.cupy.cuda.ExternalStream(stream, device))
        return scope


@functools.lru_cache(maxsize=None)
def torch_framework() -> Torch:
    return Torch()


@functools.lru_cache(maxsize=None)
def cupy_framework() -> CuPy:
    return CuPy()


@functools.lru_cache(maxsize=None)
def fallback():
    """The framework that allocates results for other producers' arrays: CuPy, else PyTorch, else None."""
    for make in (cupy_framework, torch_framework):
        try:
            return make()
        except ImportError:
            continue
    return None
