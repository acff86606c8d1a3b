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

from ._layout import View, view_of


class Torch:
    family = "torch"
    name = "PyTorch"

    def __init__(self):
        import torch

        self.torch = torch
        names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                 "float16", "bfloat16", "float32", "float64"]
        self.names = {getattr(torch, n): n for n in names if hasattr(torch, n)}
        self.dtypes = {n: d for d, n in self.names.items()}
        self._devices = {}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, without a Stream object
        self.current_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)

    def describe(self, x, what: str) -> View:
        if not x.is_cuda:
            raise TypeError(f"{what} is a torch tensor on {x.device}: warpfold reduces arrays in CUDA device "
                            f"memory (move it with {what}.cuda())")
        dtype = self.names.get(x.dtype) or str(x.dtype).replace("torch.", "")
        if x.is_contiguous():
            return View(x.data_ptr(), x.numel(), dtype, x.get_device(), True)
        return view_of(x.data_ptr(), x.shape, x.stride(), x.element_size(), dtype, x.get_device(), what)

    def device(self, index: int):
        d = self._devices.get(index)
        if d is None:
            d = self._devices[index] = self.torch.device("cuda", index)
        return d

    def current_device(self) -> int:
        return self.torch.cuda.current_device()

    def empty(self, shape, dtype: str, device: int):
        return self.torch.empty(shape, dtype=self.dtypes[dtype], device=self.device(device))

    @staticmethod
    def pointer(array) -> int:
        return array.data_ptr()

    def on_stream(self, stream: int, device: int):
        """Allocations inside belong to `stream` (PyTorch reuses their memory in that stream's order)."""
        return self.torch.cuda.stream(self.torch.cuda.ExternalStream(stream, device=self.device(device)))


class CuPy:
    family = "numpy"
    name = "CuPy"

    def __init__(self):
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
