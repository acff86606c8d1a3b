"""warpfold's Python functions: full reductions of any CUDA array, zero-copy.

Every function takes a PyTorch tensor, a CuPy array or any array with __dlpack__ or
__cuda_array_interface__ (JAX, Numba, ...), on a CUDA device, and returns a 0-d array of the
caller's framework on the same device (a CuPy array, or a PyTorch tensor where CuPy is missing,
for other producers; a JAX array for JAX). It runs on `stream` when given, else on the framework's
current stream, and never waits for the GPU: call .item() or float() for a Python number.

Result types follow the input's framework: PyTorch sums and products of bool and integers give
int64; CuPy's (NumPy's) give int64, or uint64 for unsigned input. float16 and bfloat16
accumulate in float32 and return their own type. Integer sums and products wrap around modulo
2**64 (or 2**32 with dtype=int32), as PyTorch's and NumPy's do. Results carry no autograd history.
"""

from __future__ import annotations

from ._core import full_reduce
from ._dtypes import op_name


def sum(x, *, dtype=None, out=None, stream=None):  # noqa: A001 (the name people expect)
    """Sum of every element of x. dtype= sets the result and accumulator type (int32, int64,
    uint64 or float64 for integer input; float16, bfloat16, float32 or float64 for floats)."""
    return full_reduce("sum", x, dtype, out, stream)


def prod(x, *, dtype=None, out=None, stream=None):
    """Product of every element of x (1 for an empty array); dtype= as for sum."""
    return full_reduce("prod", x, dtype, out, stream)


def min(x, *, out=None, stream=None):  # noqa: A001
    """Smallest element of x, in x's dtype; NaN if x holds a NaN. ValueError for an empty x."""
    return full_reduce("min", x, None, out, stream)


def max(x, *, out=None, stream=None):  # noqa: A001
    """Largest element of x, in x's dtype; NaN if x holds a NaN. ValueError for an empty x."""
    return full_reduce("max", x, None, out, stream)


def argmin(x, *, stream=None):
    """Flat (C-order) index of the first smallest element of x, as int64 (a NaN counts as
    smallest). ValueError for an empty x."""
    return full_reduce("argmin", x, None, None, stream)


def argmax(x, *, stream=None):
    """Flat (C-order) index of the first largest element of x, as int64 (a NaN counts as
    largest). ValueError for an empty x."""
    return full_reduce("argmax", x, None, None, stream)


def reduce(x, op, *, dtype=None, out=None, stream=None):
    """Reduces x with `op`: 'sum', 'prod', 'min', 'max', or 'and', 'or', 'xor' for integer and
    bool input (bitwise, in x's dtype). dtype= applies to 'sum' and 'prod'."""
    return full_reduce(op_name(op), x, dtype, out, stream)
