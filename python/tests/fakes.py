"""Stand-ins for PyTorch and CuPy without a GPU: arrays that describe memory a fake allocator hands
out, and the framework calls warpfold makes (allocation, current device and stream). With the
extension's launches replaced by a recorder, a test sees every allocation and launch a call makes,
as (what, arguments) events, and can compare two ways of making the same call."""

from __future__ import annotations

import contextlib
import types

import numpy as np

ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4,
            "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8}


class Machine:
    """Addresses (from 1 MiB, 256-byte aligned, never reused), the current device, and the events
    of a call. reset() starts a call over at the same addresses."""

    def __init__(self):
        self.current_device = 0
        self.start = self.next = 1 << 20
        self.events: list = []

    def alloc(self, nbytes: int, what: str, *details) -> int:
        address = self.next
        self.next += max(nbytes, 1) + 255 & ~255
        self.events.append((what, nbytes, address) + details)
        return address

    def mark(self) -> None:
        """Calls start here: what was allocated so far (the inputs) stays."""
        self.start = self.next

    def reset(self) -> None:
        self.next = self.start
        self.events = []


def c_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def is_c_contiguous(shape, strides) -> bool:
    return all(size == 1 or stride == expected for size, stride, expected in zip(shape, strides, c_strides(shape)))


def count(shape) -> int:
    n = 1
    for size in shape:
        n *= size
    return n


# --- PyTorch ---------------------------------------------------------------------------------------

class TorchDtype:
    def __init__(self, name: str):
        self.name, self.itemsize = name, ITEMSIZE[name]

    def __repr__(self):
        return f"torch.{self.name}"


class TorchDevice:
    def __init__(self, kind: str, index: int):
        self.type, self.index = kind, index

    def __repr__(self):
        return "cpu" if self.type == "cpu" else f"cuda:{self.index}"


def fake_torch(machine: Machine) -> types.SimpleNamespace:
    """A module with the parts of torch that warpfold uses."""
    torch = types.SimpleNamespace(**{name: TorchDtype(name) for name in ITEMSIZE})

    class Tensor:
        def __init__(self, shape, dtype, device: int = 0, strides=None, data=None):
            self.shape, self.dtype, self._device = tuple(shape), dtype, device
            self._strides = c_strides(self.shape) if strides is None else tuple(strides)
            self._data = machine.alloc(count(self.shape) * dtype.itemsize, "tensor") if data is None else data

        is_cuda = property(lambda self: self._device >= 0)
        device = property(lambda self: TorchDevice("cpu", 0) if self._device < 0 else TorchDevice("cuda", self._device))

        def stride(self):
            return self._strides

        def is_contiguous(self):
            return is_c_contiguous(self.shape, self._strides)

        def data_ptr(self):
            return self._data

        def numel(self):
            return count(self.shape)

        def get_device(self):
            return self._device

        def element_size(self):
            return self.dtype.itemsize

        def contiguous(self):
            return self if self.is_contiguous() else Tensor(self.shape, self.dtype, self._device)

        def reshape(self, shape):
            return Tensor(shape, self.dtype, self._device, data=self._data)

        def view(self, shape):  # of a C-contiguous tensor: C strides over the same data
            assert self.is_contiguous() and count(shape) == self.numel()
            return Tensor(shape, self.dtype, self._device, data=self._data)

        def expand(self, shape):  # a 0-d tensor's only: every stride 0
            return Tensor(shape, self.dtype, self._device, (0,) * len(shape), self._data)

        def new_empty(self, shape, dtype=None):  # torch.empty on the tensor's device, of its dtype by default
            return empty(shape, self.dtype if dtype is None else dtype, TorchDevice("cuda", self._device))

        def __getitem__(self, index):  # the one-element views of a search's {value, index} pair
            start = index.start if isinstance(index, slice) else index
            shape = (self.shape[0] - start,) if isinstance(index, slice) else ()
            return Tensor(shape, self.dtype, self._device, data=self._data + start * self.dtype.itemsize)

    def empty(shape, dtype, device):
        shape = tuple(shape)
        t = Tensor(shape, dtype, device.index, data=0)
        t._data = machine.alloc(count(shape) * dtype.itemsize, "torch.empty", shape, dtype.name, device.index)
        return t

    def empty_like(t):  # the strides of a dense input (here: every dim 0 or 1), else C order
        made = empty(t.shape, t.dtype, TorchDevice("cuda", t._device))
        if all(size < 2 for size in t.shape):
            made._strides = t._strides
        return made

    def raw_alloc(nbytes, stream):
        return machine.alloc(nbytes, "raw_alloc", stream, machine.current_device)

    torch.Tensor, torch.empty, torch.empty_like, torch.device = Tensor, empty, empty_like, TorchDevice
    torch._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda device: 0x5000 + device,
        _cuda_cudaCachingAllocator_raw_alloc=raw_alloc,
        _cuda_cudaCachingAllocator_raw_delete=lambda address: machine.events.append(("raw_delete", address)),
        _cuda_getDevice=lambda: machine.current_device)
    torch.cuda = types.SimpleNamespace(current_device=lambda: machine.current_device,
                                       ExternalStream=lambda stream, device: (stream, device),
                                       stream=lambda s: contextlib.nullcontext())
    return torch


# --- CuPy ------------------------------------------------------------------------------------------

def fake_cupy(machine: Machine) -> types.SimpleNamespace:
    """A module with the parts of cupy that warpfold uses."""

    class MemoryPointer:
        def __init__(self, ptr: int, device: int):
            self.ptr, self._device = ptr, device

        device_id = property(lambda self: self._device)

    class ndarray:
        def __init__(self, shape, dtype=float, memptr=None, strides=None):
            self.shape, self.dtype = tuple(shape), np.dtype(dtype)
            self.itemsize, self.size = self.dtype.itemsize, count(self.shape)
            self.strides = tuple(s * self.itemsize for s in c_strides(self.shape)) if strides is None else strides
            if memptr is None:
                memptr = MemoryPointer(0, machine.current_device)
                memptr.ptr = machine.alloc(self.size * self.itemsize, "cupy.ndarray", self.shape, self.dtype.name,
                                           machine.current_device)
            self.data = memptr

        _c_contiguous = property(lambda self: is_c_contiguous(self.shape, [s // self.itemsize for s in self.strides]))
        flags = property(lambda self: types.SimpleNamespace(c_contiguous=self._c_contiguous))
        device = property(lambda self: types.SimpleNamespace(id=self.data.device_id))

        def __getitem__(self, index):  # the index of a search's {value, index} pair
            return ndarray((), self.dtype, MemoryPointer(self.data.ptr + index * self.itemsize, self.data.device_id))

    class Block:
        def __init__(self, nbytes: int):
            self.ptr = machine.alloc(nbytes, "cupy.cuda.alloc", machine.current_device)

    runtime = types.SimpleNamespace(getDevice=lambda: machine.current_device)
    cuda = types.SimpleNamespace(MemoryPointer=MemoryPointer, alloc=Block, runtime=runtime,
                                 Device=lambda device: contextlib.nullcontext(),
                                 ExternalStream=lambda stream, device: contextlib.nullcontext(),
                                 get_current_stream=lambda device=-1: types.SimpleNamespace(
                                     ptr=0x6000 + (machine.current_device if device < 0 else device)))
    return types.SimpleNamespace(ndarray=ndarray, empty=lambda shape, dtype: ndarray(shape, dtype), cuda=cuda)
