"""warpfold: reductions of PyTorch, CuPy and any DLPack or __cuda_array_interface__ array on the
GPU (whole, along dims, per segment), zero-copy, on the caller's stream. See warpfold._api for the
rules every function follows."""

from ._api import (argmax, argmin, max, min, prod, reduce, reproducible_sum, segmented_max, segmented_min,
                   segmented_sum, sum)

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("warpfold")
except PackageNotFoundError:  # imported from a source tree
    __version__ = "unknown"

__all__ = ["sum", "prod", "min", "max", "argmin", "argmax", "reduce", "reproducible_sum", "segmented_sum", "segmented_min",
           "segmented_max"]
