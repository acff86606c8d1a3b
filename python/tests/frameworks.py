"""PyTorch and CuPy behind one interface for the differential tests: upload NumPy data into a
slice of a larger device array whose other elements are poison, read results back, name dtypes."""

from __future__ import annotations

import numpy as np
import pytest


def poison_value(name: str):
    """What surrounds every slice under test, so that reading past either end changes the result:
    NaN for floating types, the largest value for integers, True for bool."""
    if name == "bool":
        return True
    if name.startswith(("int", "uint")):
        return np.iinfo(np.dtype(name)).max
    return float("nan")


def with_poison(values: np.ndarray, dtype: str, offset: int) -> np.ndarray:
    """Host array: `offset` poison elements, `values` in `dtype` (bfloat16 as float32, rounded on
    the device), 8 more poison."""
    host_dtype = np.dtype(np.float32 if dtype == "bfloat16" else dtype)
    host = np.full(offset + len(values) + 8, poison_value(dtype), dtype=host_dtype)
    host[offset:offset + len(values)] = values.astype(host_dtype)
    return host


class Backend:
    name: str
    family: str
    module = None

    def upload(self, values: np.ndarray, dtype: str, offset: int):
        """values (float64, int64 or uint64 host data) as a device array of `dtype` that starts
        `offset` elements into a larger allocation of poison."""
        raise NotImplementedError

    def dtype_name(self, array) -> str:
        raise NotImplementedError

    def to_numpy(self, array) -> np.ndarray:
        """A host copy (bfloat16 widened to float32)."""
        raise NotImplementedError

    def own_sum(self, array):
        raise NotImplementedError


class TorchBackend(Backend):
    name, family = "torch", "torch"

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            pytest.skip("PyTorch sees no CUDA device")
        self.module = torch

    def upload(self, values, dtype, offset):
        torch = self.module
        host = with_poison(values, dtype, offset)  # one copy to the device: every dtype has it
        big = torch.from_numpy(host).to("cuda")
        if dtype == "bfloat16":
            big = big.to(torch.bfloat16)
        return big[offset:offset + len(values)]

    def dtype_name(self, array):
        return str(array.dtype).replace("torch.", "")

    def to_numpy(self, array):
        torch = self.module
        if array.dtype == torch.bfloat16:
            array = array.float()
        return array.cpu().numpy()

    def own_sum(self, array):
        return self.module.sum(array)


class CupyBackend(Backend):
    name, family = "cupy", "numpy"

    def __init__(self):
        import cupy

        try:
            if cupy.cuda.runtime.getDeviceCount() == 0:
                pytest.skip("CuPy sees no CUDA device")
        except cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("CuPy sees no CUDA device")
        self.module = cupy

    def device_dtype(self, dtype):
        if dtype != "bfloat16":
            return np.dtype(dtype)
        try:
            import ml_dtypes

            self.module.ones(2, dtype=np.float32).astype(ml_dtypes.bfloat16)  # can it make them at all
            return np.dtype(ml_dtypes.bfloat16)
        except Exception:  # noqa: BLE001 (any failure means: no bfloat16 here)
            pytest.skip("this CuPy has no bfloat16")

    def upload(self, values, dtype, offset):
        cupy = self.module
        big = cupy.asarray(with_poison(values, dtype, offset)).astype(self.device_dtype(dtype))
        return big[offset:offset + len(values)]

    def dtype_name(self, array):
        return array.dtype.name

    def to_numpy(self, array):
        host = self.module.asnumpy(array)
        return host.astype(np.float32) if host.dtype.name == "bfloat16" else host

    def own_sum(self, array):
        return self.module.sum(array)


_BACKENDS = {"torch": TorchBackend, "cupy": CupyBackend}


def backend(name: str) -> Backend:
    module = {"torch": "torch", "cupy": "cupy"}[name]
    pytest.importorskip(module)
    return _BACKENDS[name]()
