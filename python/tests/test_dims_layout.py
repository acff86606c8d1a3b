"""How dim= is read and how a strided array is written as [outer][axis][inner] or as passes over a
C-contiguous one: checked element by element against the definition, on made-up shapes and
strides (no GPU needed; CI runs these)."""

import itertools
import random

import pytest

from warpfold import _layout
from warpfold._axis import normalize_dims


class Index(int):
    """An int-like object (as numpy.int64 is): dims accept anything with __index__."""


@pytest.mark.parametrize("dim, ndim, dims", [
    (0, 3, (0,)), (-1, 3, (2,)), ((2, 0), 3, (0, 2)), ([1, -3], 3, (0, 1)), (Index(1), 2, (1,)),
    (0, 0, (0,)), (-1, 0, (0,)), ((), 2, ()),
])
def test_dims_are_normalized(dim, ndim, dims):
    assert normalize_dims(dim, ndim, "sum") == dims


@pytest.mark.parametrize("dim, error, text", [
    (2, IndexError, r"dim 2 is out of range for an array of 2 dims \(expected -2 to 1\)"),
    (-3, IndexError, "out of range"),
    ((0, 5), IndexError, "out of range"),
    ((0, 0), ValueError, "dim 0 appears more than once"),
    ((1, -1), ValueError, "dim 1 appears more than once"),
    (1.0, TypeError, "dim= takes an int or a tuple of ints, not float"),
    ("0", TypeError, "not str"),
    (True, TypeError, "not bool"),
    ((0, None), TypeError, "not NoneType"),
])
def test_bad_dims(dim, error, text):
    with pytest.raises(error, match=text):
        normalize_dims(dim, 2, "sum")


def test_argmin_takes_one_dim():
    with pytest.raises(TypeError, match="argmin takes one dim"):
        normalize_dims((0, 1), 2, "argmin")
    assert normalize_dims(-1, 2, "argmax") == (1,)


def test_result_shapes():
    assert _layout.result_shape((2, 3, 4), (0, 2), False) == (3,)
    assert _layout.result_shape((2, 3, 4), (0, 2), True) == (1, 3, 1)
    assert _layout.result_shape((2, 3, 4), (0, 1, 2), False) == ()
    assert _layout.result_shape((), (0,), True) == ()


# --- the layouts, against the definition -------------------------------------------------------------

def reduced_sets(shape, strides, dims):
    """For each output (C order of the kept dims): the sorted element offsets it reduces."""
    kept = [d for d in range(len(shape)) if d not in dims]
    red = [d for d in dims if d < len(shape)]
    sets = []
    for out_index in itertools.product(*(range(shape[d]) for d in kept)):
        addresses = []
        for red_index in itertools.product(*(range(shape[d]) for d in red)):
            where = dict(zip(kept, out_index))
            where.update(zip(red, red_index))
            addresses.append(sum(where[d] * strides[d] for d in range(len(shape))))
        sets.append(sorted(addresses))
    return sets


def shape_sets(a: _layout.AxisShape, positions=None):
    """The same, as an AxisShape reads it; `positions` keeps the order along the axis."""
    sets = []
    for o in range(a.outer):
        for i in range(a.inner):
            line = [a.offset + o * a.outer_stride + k * a.axis_stride + i * a.inner_stride for k in range(a.axis)]
            sets.append(line if positions else sorted(line))
    return sets


def random_layout(rng):
    """A random view: a permutation of a C-contiguous array, some dims sliced with steps (and
    reversed), some of size 1."""
    ndim = rng.randint(1, 4)
    shape = [rng.choice([1, 2, 3, 4, 5]) for _ in range(ndim)]
    base = _layout.c_strides([s * rng.choice([1, 1, 2]) for s in shape])
    strides = [b * (rng.choice([1, 1, -1])) for b in base]
    order = list(range(ndim))
    rng.shuffle(order)
    return tuple(shape[k] for k in order), tuple(strides[k] for k in order)


def test_axis_shapes_reduce_the_right_elements():
    rng = random.Random(1)
    seen = {"one pass": 0, "not in one pass": 0}
    for _ in range(3000):
        shape, strides = random_layout(rng)
        dims = tuple(sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape)))))
        a = _layout.axis_shape(shape, strides, dims, any_order=True)
        if a is None:
            seen["not in one pass"] += 1
            continue
        seen["one pass"] += 1
        assert a.outer * a.inner == len(reduced_sets(shape, strides, dims)) or 0 in shape
        if 0 not in shape:
            assert shape_sets(a) == reduced_sets(shape, strides, dims), (shape, strides, dims, a)
    assert seen["one pass"] > 1000 and seen["not in one pass"] > 50


def test_one_dim_keeps_positions_in_order():
    """argmin/argmax: element k of the axis is element k along the dim, negative strides too."""
    rng = random.Random(2)
    for _ in range(1000):
        shape, strides = random_layout(rng)
        dim = rng.randrange(len(shape))
        a = _layout.axis_shape(shape, strides, (dim,), any_order=False)
        if a is None or 0 in shape:
            continue
        kept = [d for d in range(len(shape)) if d != dim]
        expected = []
        for out_index in itertools.product(*(range(shape[d]) for d in kept)):
            base = sum(i * strides[d] for i, d in zip(out_index, kept))
            expected.append([base + k * strides[dim] for k in range(shape[dim])])
        assert shape_sets(a, positions=True) == expected, (shape, strides, dim, a)


@pytest.mark.parametrize("shape, strides, dims, expected", [
    ((4, 6), None, (1,), (0, 4, 6, 1, 6, 1, 1)),            # rows
    ((4, 6), None, (0,), (0, 1, 4, 6, 0, 6, 1)),            # columns
    ((6, 4), (1, 6), (1,), (0, 1, 4, 6, 0, 6, 1)),          # x.T.sum(1): columns of x
    ((4, 3), (6, 2), (1,), (0, 4, 3, 1, 6, 2, 1)),          # x[:, ::2].sum(1): strided rows
    ((2, 3, 4), None, (1, 2), (0, 2, 12, 1, 12, 1, 1)),     # adjacent reduced dims merge
    ((2, 3, 4), (-12, -4, -1), (1, 2), (-11, 2, 12, 1, -12, 1, 1)),  # reversed: read from the lowest address
    ((2, 3, 1, 4), None, (0,), (0, 1, 2, 12, 0, 12, 1)),    # kept dims merge over a size-1 dim
])
def test_axis_shape_examples(shape, strides, dims, expected):
    assert tuple(_layout.axis_shape(shape, strides, dims, any_order=True)) == expected


def test_layouts_that_take_passes_or_a_copy():
    assert _layout.axis_shape((2, 3, 4), None, (0, 2), any_order=True) is None  # reduced dims apart
    assert _layout.axis_shape((2, 2, 2, 2), (4, 1, 8, 2), (3,), any_order=True) is None  # three kept runs
    assert _layout.axis_shape((4, 4), (10, 2), (0, 1), any_order=True) is None  # reduced dims with gaps
    # x[:, ::2] of a [4][8] array: every other element, one extent
    assert _layout.axis_shape((4, 4), (8, 2), (0, 1), any_order=True).axis_stride == 2


def test_empty_axis_shapes():
    assert _layout.axis_shape((2, 0, 4), None, (1,), True)[1:4] == (8, 0, 1)   # outputs of nothing
    assert _layout.axis_shape((2, 0, 4), None, (0,), True)[1:4] == (0, 1, 1)   # no outputs


def simulate_passes(values, shape, dims):
    """Sums computed pass by pass as the extension runs them, over C-contiguous `values`."""
    source = list(values)
    for a in _layout.contiguous_passes(shape, dims):
        source = [sum(source[a.offset + o * a.outer_stride + k * a.axis_stride + i * a.inner_stride]
                      for k in range(a.axis)) for o in range(a.outer) for i in range(a.inner)]
    return source


@pytest.mark.parametrize("shape, dims, passes", [
    ((2, 3, 4), (0, 2), 2), ((5, 2, 3, 7), (0, 2), 2), ((3, 2, 4, 2, 5), (0, 2, 4), 3),
    ((2, 1, 3), (0, 2), 1), ((4, 3, 2), (0, 1, 2), 1),
])
def test_passes_over_contiguous_arrays(shape, dims, passes):
    rng = random.Random(3)
    n = 1
    for size in shape:
        n *= size
    values = [rng.randint(-1000, 1000) for _ in range(n)]
    sums = [sum(values[k] for k in line) for line in reduced_sets(shape, _layout.c_strides(shape), dims)]
    assert len(_layout.contiguous_passes(shape, dims)) == passes
    assert simulate_passes(values, shape, dims) == sums


# --- the axis bench's shapes, as the C++ bench reads them ------------------------------------------------

def cpp_bench_shape(shape):
    """The axis_shape `warpfold bench --axis` passes to reduce_axis for one of its shapes
    (src/bench/segmented_bench.cpp's prepare()): (outer, axis, inner, outer_stride, axis_stride,
    inner_stride)."""
    r, c = shape.rows, shape.cols
    if shape.view == "x.T.sum(1)":
        return (c, r, 1, 1, c, 1)
    if shape.view == "x[:, ::2].sum(1)":
        return (r, c // 2, 1, c, 2, 1)
    return (1, r, c, r * c, c, 1) if shape.dim == 0 else (r, c, 1, c, 1, 1)


def as_dispatched(extents):
    """What reduce_axis reads of a shape (include/warpfold/detail/segmented_dispatch.cuh's
    dispatch_axis): outputs side by side and rows apart become columns of one outer, and the stride
    of an extent of one is never read."""
    outer, axis, inner, outer_stride, axis_stride, inner_stride = extents
    if inner == 1 and outer > 1 and outer_stride == 1 and axis_stride != 1:
        outer, axis, inner, outer_stride, axis_stride, inner_stride = 1, axis, outer, 0, axis_stride, 1
    return (outer, axis, inner, outer_stride if outer > 1 else 0, axis_stride if axis > 1 else 0,
            inner_stride if inner > 1 else 0)


@pytest.mark.parametrize("log2_elements", [26, 11])
def test_the_axis_bench_shapes_reach_reduce_axis_as_in_the_cpp_bench(log2_elements):
    from warpfold import bench

    for shape in bench.axis_bench_shapes(log2_elements):
        r, c = shape.rows, shape.cols
        sizes, strides = {"x.T.sum(1)": ((c, r), (1, c)), "x[:, ::2].sum(1)": ((r, c // 2), (c, 2))}.get(
            shape.view, ((r, c), (c, 1)))
        ours = _layout.axis_shape(sizes, strides, (shape.dim,), True)
        assert ours.offset == 0
        assert as_dispatched(ours.extents) == as_dispatched(cpp_bench_shape(shape)), shape.name
