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
    view = dense_or_none(make_strided(data, shape, strides, itemsize, dtype, device))
    if view is None:
        raise ValueError(
            f"{what} is not contiguous (shape {tuple(shape)}, strides {tuple(strides)} elements): warpfold reads "
            "one dense block of memory; make a contiguous copy first (x.contiguous() in PyTorch, "
            "cupy.ascontiguousarray(x) in CuPy)")
    return view


class Strided(NamedTuple):
    """An input as its producer describes it: `shape` and element `strides` (None: C order)."""

    data: int
    shape: tuple
    strides: Optional[tuple]
    itemsize: int
    dtype: str
    device: int
    n: int


def make_strided(data: int, shape: Sequence[int], strides: Optional[Sequence[int]], itemsize: int, dtype: str,
                 device: int) -> Strided:
    n = 1
    for size in shape:
        n *= size
    return Strided(data, tuple(shape), None if strides is None else tuple(strides), itemsize, dtype, device, n)


def dense_view(s: Strided, what: str) -> View:
    """The View of a Strided input for a full reduce (ValueError where it is not one dense block)."""
    return view_of(s.data, s.shape, s.strides, s.itemsize, s.dtype, s.device, what)


def c_strides(shape: Sequence[int]) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


# --- reductions along dims -----------------------------------------------------------------------

class AxisShape(NamedTuple):
    """A reduction along dims as warpfold::reduce_axis reads it: [outer][axis][inner], element
    strides, starting `offset` elements from the array's data pointer; outputs are outer·inner,
    in C order of the kept dims."""

    offset: int
    outer: int
    axis: int
    inner: int
    outer_stride: int
    axis_stride: int
    inner_stride: int

    @property
    def extents(self) -> tuple:
        return (self.outer, self.axis, self.inner, self.outer_stride, self.axis_stride, self.inner_stride)


def result_shape(shape: Sequence[int], dims: Sequence[int], keepdim: bool) -> tuple:
    """The shape of a reduction of `shape` over `dims`: the reduced dims dropped, or kept as 1."""
    if keepdim:
        return tuple(1 if d in dims else size for d, size in enumerate(shape))
    return tuple(size for d, size in enumerate(shape) if d not in dims)


def _merge_in_order(dims: Sequence[tuple]) -> list:
    """Adjacent (size, stride) dims merged where the outer one steps over the inner one exactly:
    the runs, each one extent with one stride, in order."""
    runs: list = []
    for size, stride in dims:
        if runs and runs[-1][1] == stride * size:
            runs[-1] = (runs[-1][0] * size, stride)
        else:
            runs.append((size, stride))
    return runs


def _merge_any_order(dims: Sequence[tuple], offset: int):
    """The reduced (size, stride) dims as one extent in any element order (sums, min, max), a
    negative stride turned around by moving the start: ((size, stride), offset), or None where
    they leave gaps or overlap."""
    flipped = []
    for size, stride in dims:
        if stride < 0:
            offset += (size - 1) * stride
            stride = -stride
        flipped.append((stride, size))
    flipped.sort()
    total, step = 1, flipped[0][0]
    for stride, size in flipped:
        if stride != step * total:
            return None
        total *= size
    return (total, step), offset


def axis_shape(shape: Sequence[int], strides: Optional[Sequence[int]], dims: Sequence[int],
               any_order: bool) -> Optional[AxisShape]:
    """[outer][axis][inner] for reducing `dims` of an array (element strides, None: C order), or
    None where the layout cannot be written so: more than two runs of kept dims that do not
    merge, or reduced dims that do not merge. `any_order`: the reduced elements may be visited
    in any order (not so for argmin/argmax, which count positions along the dim)."""
    if strides is None:
        strides = c_strides(shape)
    kept = [(size, stride) for d, (size, stride) in enumerate(zip(shape, strides)) if d not in dims and size != 1]
    reduced = [(size, stride) for d, (size, stride) in enumerate(zip(shape, strides)) if d in dims and size != 1]
    outputs = 1
    for size, _ in kept:
        outputs *= size
    if outputs == 0 or any(size == 0 for size, _ in reduced):
        return AxisShape(0, outputs, 0 if outputs else 1, 1, 1, 1, 1)  # nothing to read
    runs = _merge_in_order(kept)
    if len(runs) > 2:
        return None
    offset, axis = 0, (1, 1)
    if len(reduced) == 1:
        axis = reduced[0]
    elif reduced:
        if not any_order:
            return None
        merged = _merge_any_order(reduced, 0)
        if merged is None:
            return None
        axis, offset = merged
    if len(runs) == 2:
        (outer, outer_stride), (inner, inner_stride) = runs
    elif len(runs) == 1 and runs[0][1] == 1:
        (outer, outer_stride), (inner, inner_stride) = (1, 0), runs[0]  # neighbouring outputs: columns
    elif len(runs) == 1:
        (outer, outer_stride), (inner, inner_stride) = runs[0], (1, 1)
    else:
        (outer, outer_stride), (inner, inner_stride) = (1, 0), (1, 1)
    return AxisShape(offset, outer, axis[0], inner, outer_stride, axis[1], inner_stride)


def contiguous_passes(shape: Sequence[int], dims: Sequence[int]) -> list:
    """For a C-contiguous array whose reduced dims are not adjacent (x.sum(dim=(0, 2))): one
    [outer][axis][inner] pass per run of adjacent reduced dims, the largest first (the smallest
    intermediate), each over the contiguous output of the one before."""
    # (size, reduced) of the dims of size > 1, adjacent dims of one kind merged
    runs = _merge_kinds([(size, d in dims) for d, size in enumerate(shape) if size != 1])
    passes = []
    while any(reduced for _, reduced in runs):
        i = max((i for i, (_, reduced) in enumerate(runs) if reduced), key=lambda i: runs[i][0])
        outer = inner = 1
        for size, _ in runs[:i]:
            outer *= size
        for size, _ in runs[i + 1:]:
            inner *= size
        axis = runs[i][0]
        passes.append(AxisShape(0, outer, axis, inner, axis * inner, inner, 1))
        runs = _merge_kinds(runs[:i] + runs[i + 1:])
    if not passes:  # every reduced dim has size 1: each output is one element
        total = 1
        for size, _ in runs:
            total *= size
        passes.append(AxisShape(0, total, 1, 1, 1, 1, 1))
    return passes


def _merge_kinds(runs: list) -> list:
    merged: list = []
    for size, reduced in runs:
        if merged and merged[-1][1] == reduced:
            merged[-1] = (merged[-1][0] * size, reduced)
        else:
            merged.append((size, reduced))
    return merged


def dense_or_none(s: Strided) -> Optional[View]:
    """The View of a Strided input that is one dense block, else None."""
    if s.strides is None or s.n == 0 or is_c_contiguous(s.shape, s.strides):
        return View(s.data, s.n, s.dtype, s.device, True)
    start = dense_block_start(s.shape, s.strides)
    return None if start is None else View(s.data + start * s.itemsize, s.n, s.dtype, s.device, False)
