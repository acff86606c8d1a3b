"""warpfold's Python functions: reductions of any CUDA array, zero-copy.

Every function takes a PyTorch tensor, a CuPy array or any array with __dlpack__ or
__cuda_array_interface__ (JAX, Numba, ...), on a CUDA device, and returns an array of the
caller's framework on the same device (a CuPy array, or a PyTorch tensor where CuPy is missing,
for other producers; a JAX array for JAX). It runs on `stream` when given, else on the framework's
current stream, and never waits for the GPU: call .item() or float() for a Python number.

Result types follow the input's framework: PyTorch sums and products of bool and integers give
int64; CuPy's (NumPy's) give int64, or uint64 for unsigned input. float16 and bfloat16
accumulate in float32 and return their own type. Integer sums and products wrap around modulo
2**64 (or 2**32 with dtype=int32), as PyTorch's and NumPy's do. Results carry no autograd history.

dim= (an int, a negative int, or a tuple of ints; None or () for every dim) reduces along those
dims, keepdim=True keeps them with size 1, as torch.sum(x, dim, keepdim) does. Along dims, sums
are compiled for every dtype; prod, min, max, argmin and argmax for float32, float64, int32 and
int64 (others raise TypeError naming these). min and max along dims return the values (as
torch.amin/amax); argmin and argmax the positions along their one dim.
"""

from __future__ import annotations

import sys

from . import _warpfold as _ext
from ._axis import reduce_along
from ._core import full_reduce
from ._dtypes import op_name
from ._fast import FAST, calls_for
from ._segmented import segmented_reduce


# sum, prod, min, max, argmin, argmax and reproducible_sum are functions of the extension
# (python/src/fast_calls.cpp, entry_point): _reduce with the op bound and the arguments parsed in
# C++, so that a small call makes no Python frame before the launch. entry_point gives each the
# parameters its op takes (help() shows them). sum, min and max shadow the builtins here: they are
# the names people expect.


def _entry_point(op: str, doc: str):
    return _ext.entry_point(op, doc, sys.modules[__package__])


sum = _entry_point("sum", """Sum of the elements of x (along `dim`). dtype= sets the result and accumulator type
(int32, int64, uint64 or float64 for integer input; float16, bfloat16, float32 or float64
for floats; along dims, those compiled for it).""")

prod = _entry_point("prod", """Product of the elements of x (along `dim`; 1 over none); dtype= as for sum.""")

min = _entry_point("min", """Smallest element of x (along `dim`), in x's dtype; NaN where there is one. ValueError
where the reduced elements are none.""")

max = _entry_point("max", """Largest element of x (along `dim`), in x's dtype; NaN where there is one. ValueError
where the reduced elements are none.""")

argmin = _entry_point("argmin", """Position of the first smallest element as int64 (a NaN counts as smallest): the flat
(C-order) index without dim, the index along `dim` (one int) with it. ValueError where the
reduced elements are none.""")

argmax = _entry_point("argmax", """Position of the first largest element as int64 (a NaN counts as largest), as argmin.""")

reproducible_sum = _entry_point("reproducible_sum", """Sum of every element of x whose bits depend on the values alone: not on their order or
layout, the GPU, its grid or the stream (ReproBLAS's binned sum, bitwise its rssum and rdsum).
float16, bfloat16 and float32 sum in float32, float64 in float64; the result has x's dtype, or
float32 with dtype= for float16 and bfloat16. It lies within n * 2**-26 * max|x| + 7 * eps *
|sum| of the exact sum (n * 2**-80 * max|x| in float64; eps the accumulator's), then rounds to
a float16 or bfloat16 result. Any NaN, or +inf with -inf, gives NaN; an empty x gives +0.0. A
sum in float32 takes at most 2**32 - 512 elements (ValueError beyond).""")


def reduce(x, op, dim=None, *, keepdim=False, dtype=None, out=None, stream=None):
    """Reduces x with `op`: 'sum', 'prod', 'min', 'max', or 'and', 'or', 'xor' for integer and
    bool input (bitwise, in x's dtype; over every dim only). dtype= applies to 'sum' and 'prod'."""
    name = op_name(op)
    return _reduce(name, x, dim, keepdim, dtype, out, stream)


# _reduce(op, x, dim, keepdim, dtype, out, stream), in C++ (python/src/fast_calls.cpp) for the host
# time of small calls: without out= and stream=, the fast path of x's type (_fast.FAST, filled by
# calls_for; PyTorch's and CuPy's arrays; each has a served_full attribute), which hands on what it
# does not serve; else, and for other arrays, full_reduce over every dim or reduce_along. These
# objects are given here once: rebinding the names later changes nothing.
_ext.set_routes(FAST, calls_for, full_reduce, reduce_along)
_reduce = _ext.dispatch


def segmented_sum(x, offsets, *, dtype=None, stream=None):
    """Sum of each segment x[offsets[s]:offsets[s + 1]] of the flat (C-order) x: a 1-D array of
    len(offsets) - 1 sums. offsets: int32 or int64 CSR boundaries on x's device; each is clamped
    to [0, x.size], and a segment whose end is at or before its begin is empty (its sum is 0).
    dtype= as for sum."""
    return segmented_reduce("sum", x, offsets, dtype, stream)


def segmented_min(x, offsets, *, stream=None):
    """Smallest element of each segment (float32, float64, int32, int64), as segmented_sum; an
    empty segment gives the largest value of the dtype (inf for floats)."""
    return segmented_reduce("min", x, offsets, None, stream)


def segmented_max(x, offsets, *, stream=None):
    """Largest element of each segment (float32, float64, int32, int64), as segmented_sum; an
    empty segment gives the smallest value of the dtype (-inf for floats)."""
    return segmented_reduce("max", x, offsets, None, stream)
