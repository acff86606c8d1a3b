"""Which memory layouts a full reduce can read, from an array's shape and strides (in elements)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence


class View(NamedTuple):
    """An input as warpfold reads it: `n` elements of `dtype` from address `data` on `device`.

    `ordered` is True when the elements lie in C (row-major) order, as the flat indices of
    argmin/argmax count them; False when they fill one dense block in another order (a transpose,
    a reversed array), which a sum, min or max can read as it is.
    """

    data: int
    n: int
    dtype: str
    device: int
    ordered: bool


def is_c_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def dense_block_start(shape: Sequence[int], strides: Sequence[int]) -> Optional[int]:
    """Offset (in elements, at most 0) from the first element to the lowest address when the
    elements fill one dense block in some order; None when they leave gaps or overlap."""
    dims = sorted((abs(stride), size, stride) for size, stride in zip(shape, strides) if size != 1)
    expected, start = 1, 0
    for magnitude, size, stride in dims:
        if magnitude != expected:
            return None
        expected *= size
        if stride < 0:
            start += (size - 1) * stride
    return start


def view_of(data: int, shape: Sequence[int], strides: Optional[Sequence[int]], itemsize: int, dtype: str,
            device: int, what: str) -> View:
    """The View of an array given its data pointer, shape and element strides (None: C order).
    Raises ValueError for a layout that is not one dense block."""
    n = 1
    for size in shape:
        n *= size
    if strides is None or n == 0 or is_c_contiguous(shape, strides):
        return View(data, n, dtype, device, True)
    start = dense_block_start(shape, strides)
    if start is None:
        raise ValueError(
            f"{what} is not contiguous (shape {tuple(shape)}, strides {tuple(strides)} elements): warpfold reads "
            "one dense block of memory; make a contiguous copy first (x.contiguous() in PyTorch, "
            "cupy.ascontiguousarray(x) in CuPy)")
    return View(data + start * itemsize, n, dtype, device, False)
