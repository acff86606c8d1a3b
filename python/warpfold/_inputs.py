"""Reading an argument as an array: what it holds, where, and who allocates its results.

PyTorch tensors and CuPy arrays are read through their own attributes (the fast path); other
arrays through DLPack (__dlpack__, imported by nanobind) or __cuda_array_interface__. Every check
that needs no GPU (dtype, layout) comes before the first CUDA call, so the errors for bad input
are the same with or without a device.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, NamedTuple, Optional, Union

from . import _warpfold as _ext
from ._frameworks import cupy_framework, fallback, torch_framework
from ._layout import Strided, View, dense_view, make_strided

_DLPACK_DEVICES = {1: "cpu", 2: "cuda", 3: "cuda_host (pinned host memory)", 4: "opencl", 7: "vulkan", 8: "metal",
                   9: "vpi", 10: "rocm", 11: "rocm_host", 13: "cuda_managed", 14: "oneapi"}
_DLPACK_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}
_TYPESTR_KINDS = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


class Input(NamedTuple):
    view: Union[View, Strided]  # a View for a full reduce, a Strided where read(strided=True)
    family: str  # whose dtype rules apply: "torch" or "numpy"
    framework: Any  # allocates results and temp storage (None where neither PyTorch nor CuPy is installed)
    producer_stream: Optional[int]  # the stream the producer's data is pending on, if it said so
    to_caller: Optional[Callable]  # turns a result into the caller's array type (JAX), if needed
    writable: bool


def dtype_name(kind: str, bits: int) -> str:
    if kind == "bool":
        return "bool"
    return f"{kind}{bits}"


def read(x, what: str, stream: Optional[int] = None, strided: bool = False) -> Input:
    """`x` as an Input; raises TypeError or ValueError for what warpfold cannot read. `stream`,
    the stream= given if any, is where a DLPack producer must order its pending work before.
    strided=True gives the shape and strides as they are (a Strided), for reductions along dims;
    else the View of one dense block, as a full reduce reads it."""
    reader = _READERS.get(type(x))
    if reader is None:
        reader = _reader_for(type(x))
        if reader is not None:
            _READERS[type(x)] = reader
        else:
            reader = _read_other
    return reader(x, what, stream, strided)


def _framework_reader(fw) -> Callable[[Any, str, Optional[int], bool], Input]:
    """The reader of a framework's own arrays (the per-call fast path: one call, no lookups)."""
    describe, strided_view, family = fw.describe, fw.strided, fw.family

    def read_own(x, what: str, stream: Optional[int], strided: bool) -> Input:
        return Input(strided_view(x, what) if strided else describe(x, what), family, fw, None, None, True)

    return read_own


def _read_numpy(x, what: str, stream: Optional[int], strided: bool) -> Input:
    raise TypeError(f"{what} is a NumPy array in host memory (cpu): warpfold reduces arrays in CUDA device memory "
                    "(copy it to the GPU first, e.g. cupy.asarray(x) or torch.from_numpy(x).cuda())")


def _jax_result(result):
    """The result as a JAX array, without a copy where JAX can alias it: XLA takes external
    buffers at 64-byte alignment, which an argmin/argmax index (at byte 8) lacks."""
    import jax.dlpack

    if result.__cuda_array_interface__["data"][0] % 64:
        result = result.clone() if hasattr(result, "clone") else result.copy()  # PyTorch or CuPy
    return jax.dlpack.from_dlpack(result)


def _read_dlpack(x, what: str, stream: Optional[int], strided: bool) -> Input:
    device_type, device = x.__dlpack_device__()
    if device_type not in (2, 13):
        where = _DLPACK_DEVICES.get(int(device_type), f"DLPack device type {device_type}")
        raise TypeError(f"{what} is on {where}: warpfold reduces arrays in CUDA device memory")
    fw = fallback()
    if stream is None:
        stream = fw.current_stream(device) if fw is not None else 1
    try:  # the producer orders its pending work before `stream` (DLPack: 1 is the legacy default stream)
        capsule = x.__dlpack__(stream=stream or 1)
    except TypeError:
        capsule = x.__dlpack__()
    view = _dlpack_strided(capsule, what)
    module = type(x).__module__.split(".")[0]
    return Input(view if strided else dense_view(view, what), "numpy", fw, None,
                 _jax_result if module in ("jax", "jaxlib") else None, True)


def _dlpack_strided(array, what: str) -> Strided:
    try:
        data, shape, strides, (code, bits, lanes), (device_type, device) = _ext.dlpack_view(array)
    except TypeError:
        raise TypeError(f"{what} must be an array (a PyTorch tensor, a CuPy array or any object with __dlpack__ or "
                        f"__cuda_array_interface__), not {type(array).__name__}") from None
    if device_type not in (2, 13):
        where = _DLPACK_DEVICES.get(device_type, f"DLPack device type {device_type}")
        raise TypeError(f"{what} is on {where}: warpfold reduces arrays in CUDA device memory")
    kind = _DLPACK_CODES.get(code, f"dlpack_code_{code}_")
    dtype = dtype_name(kind, bits) if lanes == 1 else f"{kind}{bits}x{lanes}"
    return make_strided(data, shape, strides, max(bits // 8, 1), dtype, device)


def _read_cuda_array_interface(x, what: str, stream: Optional[int] = None, strided: bool = False) -> Input:
    cai = x.__cuda_array_interface__
    typestr = cai["typestr"]
    data, readonly = cai["data"]
    shape = tuple(cai["shape"])
    if cai.get("mask") is not None:
        raise ValueError(f"{what} has a mask: warpfold reduces unmasked arrays")
    kind = _TYPESTR_KINDS.get(typestr[1:2], f"typestr {typestr} ")
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
    dtype = dtype_name(kind, itemsize * 8)
    if typestr[0] == ">" and itemsize > 1:
        dtype = f"big-endian {dtype}"
    strides = cai.get("strides")
    if strides is not None:
        if itemsize == 0 or any(s % itemsize for s in strides):
            raise ValueError(f"{what} has strides {tuple(strides)} bytes, not whole elements of {itemsize} bytes")
        strides = [s // itemsize for s in strides]
    view = make_strided(data, shape, strides, max(itemsize, 1), dtype, -1)  # device: see locate()
    fw = fallback()
    pending = cai.get("stream")  # version 3: the data may still be pending on this stream (1: the legacy default)
    return Input(view if strided else dense_view(view, what), "numpy", fw,
                 None if pending is None else (0 if pending == 1 else pending), None, not readonly)


def _read_other(x, what: str, stream: Optional[int], strided: bool) -> Input:
    """Objects whose type says nothing: a __cuda_array_interface__ set on the instance, or a host
    buffer (which nanobind reads through the buffer protocol, to name its device)."""
    if hasattr(x, "__cuda_array_interface__"):
        return _read_cuda_array_interface(x, what, stream, strided)
    view = _dlpack_strided(x, what)  # a host buffer raises
    return Input(view if strided else dense_view(view, what), "numpy", fallback(), None, None, True)


def locate(inp: Input, what: str) -> int:
    """The device holding inp's data: asked of CUDA for __cuda_array_interface__ arrays, whose
    producers do not say (the first CUDA call for them, after every check that needs none)."""
    if inp.view.device >= 0:
        return inp.view.device
    if inp.view.n > 0:
        memory, device = _ext.pointer_location(inp.view.data)
        if memory not in ("device", "managed"):
            raise TypeError(f"{what}'s data is in {memory} host memory (cpu): warpfold reduces arrays in CUDA device "
                            "memory")
        if device >= 0:
            return device
    return require_framework(inp, what).current_device()


def require_framework(inp: Input, what: str):
    if inp.framework is None:
        raise TypeError(f"{what} needs PyTorch or CuPy, through which warpfold allocates results; neither is installed")
    return inp.framework


def _reader_for(cls) -> Optional[Callable[[Any, str, Optional[int], bool], Input]]:
    module = (getattr(cls, "__module__", None) or "").split(".")[0]
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(cls, torch.Tensor):
        return _framework_reader(torch_framework())
    cupy = sys.modules.get("cupy")
    if cupy is not None and issubclass(cls, cupy.ndarray):
        return _framework_reader(cupy_framework())
    if module == "numpy":
        return _read_numpy
    if hasattr(cls, "__dlpack__") and hasattr(cls, "__dlpack_device__"):
        return _read_dlpack
    if hasattr(cls, "__cuda_array_interface__"):
        return _read_cuda_array_interface
    return None


_READERS: dict = {}
