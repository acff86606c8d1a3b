"""Reductions along dims against the caller's framework (torch.sum(dim), cupy.sum(axis), ...) and
a NumPy reference: every compiled dtype and op, odd shapes, negative dims, tuples, keepdim,
transposed, sliced, reversed and broadcast views, layouts that take passes or a copy, NaN and
infinities, empty dims. Needs a CUDA device (skipped without)."""

import math

import pytest

np = pytest.importorskip("numpy")  # the references; without it these tests skip

from reference import ROUNDOFF, product_values, quarter_values, random_values, rounded  # noqa: E402

import warpfold  # noqa: E402
from warpfold import _layout  # noqa: E402
from warpfold._dtypes import FLOATS, HALVES, SUPPORTED, default_result  # noqa: E402

AXIS_TYPES = ("int32", "int64", "float32", "float64")  # prod, min, max, argmin, argmax along dims
# Sums whose framework has no settled rule to compare with: CuPy's half sums (not accumulated in
# float32), PyTorch's of wide unsigned types (partly implemented).
NO_OWN_SUM = {"cupy": HALVES, "torch": ("uint16", "uint32", "uint64")}
RESULT_ULPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
# (shape, dim): one dim, negative dims, adjacent dims (one pass), dims apart (two passes), all dims.
CASES = [
    ((7, 1000), 0), ((7, 1000), 1), ((1000, 7), -1), ((33, 65), (0,)), ((4097,), 0), ((3, 5, 129), (0, 2)),
    ((3, 5, 129), (1, 2)), ((3, 5, 129), (-3, -2)), ((2, 1, 3, 67), (0, 3)), ((3, 5, 129), (0, 1, 2)),
    ((2, 3, 4, 5, 6), (0, 2, 4)),
]


def device_array(backend, dtype, shape, make, rng, offset=1):
    """(device array of `shape` starting `offset` elements into poison, its host copy)."""
    n = math.prod(shape)
    flat = backend.upload(make(dtype, n, rng), dtype, offset)
    x = flat.reshape(shape)
    return x, backend.to_numpy(x)


def as_tuple(dim, ndim):
    dims = dim if isinstance(dim, tuple) else (dim,)
    return tuple(sorted(d % ndim for d in dims))


def float_tolerance(values, dims, result):
    """Per output: any fold order's error, m·u·sum|x| in the accumulator (m elements reduced),
    plus the rounding to `result`."""
    acc = "float64" if result == "float64" else "float32"
    m = math.prod(values.shape[d] for d in dims)
    abs_sum = np.abs(values.astype(np.float64)).sum(axis=dims)
    exact = values.astype(np.float64).sum(axis=dims)
    return exact, m * ROUNDOFF[acc] * abs_sum + RESULT_ULPS[result] * np.abs(exact) + 1e-300


def integer_reference(values, dims, result, op):
    with np.errstate(over="ignore"):
        return (np.sum if op == "sum" else np.prod)(values.astype(np.dtype(result)), axis=dims, dtype=np.dtype(result))


def check_sum(backend, r, values, dims, keepdim, result, where):
    expected_shape = _layout.result_shape(values.shape, dims, keepdim)
    assert tuple(r.shape) == expected_shape, where
    assert backend.dtype_name(r) == result, where
    got = backend.to_numpy(r).reshape(_layout.result_shape(values.shape, dims, False))
    if result in FLOATS:
        exact, tolerance = float_tolerance(values, dims, result)
        finite = np.isfinite(exact)
        assert np.all(np.abs(got.astype(np.float64)[finite] - exact[finite]) <= tolerance[finite]), where
    else:
        assert np.array_equal(got.astype(np.dtype(result)), integer_reference(values, dims, result, "sum")), where


def own(backend, op, x, dim, keepdim):
    """The framework's own reduction along dims, or None where it has none for this input."""
    module = backend.module
    try:
        if backend.name == "torch":
            if op in ("argmin", "argmax"):
                return getattr(module, op)(x, dim=dim, keepdim=keepdim)
            if op == "prod":
                return module.prod(x, dim=dim, keepdim=keepdim) if isinstance(dim, int) else None
            name = {"min": "amin", "max": "amax"}.get(op, op)
            return getattr(module, name)(x, dim=dim, keepdim=keepdim)
        return getattr(module, op)(x, axis=dim, keepdims=keepdim)
    except (RuntimeError, TypeError, NotImplementedError):
        return None


@pytest.mark.parametrize("dtype", SUPPORTED)
def test_sum_along_dims(backend, dtype):
    rng = np.random.default_rng()
    for k, (shape, dim) in enumerate(CASES):
        keepdim = bool(k % 2)
        x, values = device_array(backend, dtype, shape, random_values, rng)
        dims = as_tuple(dim, len(shape))
        result = default_result("sum", dtype, backend.family)
        r = warpfold.sum(x, dim=dim, keepdim=keepdim)
        where = f"shape={shape} dim={dim} keepdim={keepdim}"
        check_sum(backend, r, values, dims, keepdim, result, where)
        theirs = None if dtype in NO_OWN_SUM.get(backend.name, ()) else own(backend, "sum", x, dim, keepdim)
        if theirs is not None:
            assert tuple(theirs.shape) == tuple(r.shape) and backend.dtype_name(theirs) == result, where
            if dtype not in FLOATS:
                assert np.array_equal(backend.to_numpy(theirs), backend.to_numpy(r)), where


@pytest.mark.parametrize("dtype", FLOATS)
def test_exact_sums_along_dims(backend, dtype):
    """Quarters: every partial sum exact, so every output is exact whatever the fold order."""
    rng = np.random.default_rng()
    for shape, dim in CASES:
        x, values = device_array(backend, dtype, shape, lambda d, n, g: quarter_values(n, g), rng)
        dims = as_tuple(dim, len(shape))
        got = backend.to_numpy(warpfold.sum(x, dim=dim)).astype(np.float64)
        exact = np.vectorize(lambda v: rounded(v, dtype))(values.astype(np.float64).sum(axis=dims))
        assert np.array_equal(got, exact), f"shape={shape} dim={dim}"


@pytest.mark.parametrize("dtype", AXIS_TYPES)
def test_prod_along_dims(backend, dtype):
    rng = np.random.default_rng()
    for shape, dim in CASES:
        x, values = device_array(backend, dtype, shape, product_values, rng)
        dims = as_tuple(dim, len(shape))
        result = default_result("prod", dtype, backend.family)
        r = warpfold.prod(x, dim=dim)
        where = f"shape={shape} dim={dim}"
        assert backend.dtype_name(r) == result, where
        got = backend.to_numpy(r)
        if dtype in FLOATS:
            exact = np.prod(values.astype(np.float64), axis=dims)
            m = math.prod(shape[d] for d in dims)
            assert np.all(np.abs(got - exact) <= m * ROUNDOFF[dtype] * np.abs(exact) * 2), where
        else:
            assert np.array_equal(got, integer_reference(values, dims, result, "prod")), where


@pytest.mark.parametrize("dtype", AXIS_TYPES)
def test_min_max_argmin_argmax_along_dims(backend, dtype):
    rng = np.random.default_rng()
    for k, (shape, dim) in enumerate(CASES):
        make = random_values
        if dtype in FLOATS:  # quarters in [-1/2, 1]: many ties, where the first position must win
            make = lambda d, n, g: np.round(random_values(d, n, g) * 4) / 4  # noqa: E731
        x, values = device_array(backend, dtype, shape, make, rng)
        dims = as_tuple(dim, len(shape))
        keepdim = bool(k % 2)
        for op, reference in (("min", np.min), ("max", np.max)):
            r = getattr(warpfold, op)(x, dim=dim, keepdim=keepdim)
            assert backend.dtype_name(r) == dtype
            assert np.array_equal(backend.to_numpy(r), reference(values, axis=dims, keepdims=keepdim)), f"{op} {shape}"
            theirs = own(backend, op, x, dim, keepdim)
            assert theirs is None or np.array_equal(backend.to_numpy(theirs), backend.to_numpy(r))
        for one in dims:
            for op, reference in (("argmin", np.argmin), ("argmax", np.argmax)):
                r = getattr(warpfold, op)(x, dim=one - len(shape), keepdim=keepdim)  # a negative dim
                assert backend.dtype_name(r) == "int64"
                expected = reference(values, axis=one)
                assert np.array_equal(backend.to_numpy(r).reshape(expected.shape), expected), f"{op} {shape} {one}"
                if keepdim:
                    assert tuple(r.shape) == _layout.result_shape(shape, (one,), True)


def views(backend, x):
    """Views of a matrix that read it in place (and one that takes a copy), by name."""
    found = {"x.T": x.T, "x[:, ::2]": x[:, ::2], "x[::3, 1:]": x[::3, 1:], "x.T[::2]": x.T[::2]}
    if backend.name == "cupy":  # negative strides (PyTorch has none)
        found["x[::-1]"] = x[::-1]
        found["x[::-1, ::-2]"] = x[::-1, ::-2]
    else:
        found["x[:, None].expand(rows, 3, cols)"] = x[:, None].expand(x.shape[0], 3, x.shape[1])  # stride 0
    return found


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "int8"])
def test_views(backend, dtype):
    rng = np.random.default_rng()
    x, _ = device_array(backend, dtype, (129, 70), random_values, rng)
    for name, v in views(backend, x).items():
        values = backend.to_numpy(v)
        for dim in list(range(v.ndim)) + [tuple(range(v.ndim))]:
            r = warpfold.sum(v, dim=dim)
            result = default_result("sum", dtype, backend.family)
            check_sum(backend, r, values, as_tuple(dim, v.ndim), False, result, f"{name}.sum({dim})")
        if dtype in AXIS_TYPES:
            for dim in range(v.ndim):
                assert np.array_equal(backend.to_numpy(warpfold.argmax(v, dim=dim)), np.argmax(values, axis=dim)), name
                assert np.array_equal(backend.to_numpy(warpfold.min(v, dim=dim)), np.min(values, axis=dim)), name


def test_layouts_that_take_a_copy(backend):
    """Three runs of kept dims (a permuted 4-D array): the framework copies, the result holds."""
    rng = np.random.default_rng()
    x, _ = device_array(backend, "float32", (3, 4, 5, 6), lambda d, n, g: quarter_values(n, g), rng)
    p = x.permute(1, 3, 0, 2) if backend.name == "torch" else x.transpose(1, 3, 0, 2)
    values = backend.to_numpy(p)
    strides = tuple(p.stride()) if backend.name == "torch" else tuple(s // 4 for s in p.strides)
    assert _layout.axis_shape(tuple(p.shape), strides, (3,), True) is None  # the copy path
    for dim in (3, (1, 3)):
        got = backend.to_numpy(warpfold.sum(p, dim=dim))
        assert np.array_equal(got, values.sum(axis=as_tuple(dim, 4))), dim
    assert np.array_equal(backend.to_numpy(warpfold.argmin(p, dim=3)), np.argmin(values, axis=3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_infinities_along_dims(backend, dtype):
    rng = np.random.default_rng()
    rows, cols = 64, 300
    values = random_values(dtype, rows * cols, rng).reshape(rows, cols)
    nan_at = rng.integers(0, cols, rows)
    values[np.arange(0, rows, 2), nan_at[::2]] = np.nan  # a NaN in every even row
    values[1, 5] = np.inf
    values[3, 7], values[3, 9] = np.inf, -np.inf
    x = backend.upload(values.ravel(), dtype, 1).reshape(rows, cols)
    sums = backend.to_numpy(warpfold.sum(x, dim=1))
    assert np.all(np.isnan(sums[::2])) and sums[1] == np.inf and np.isnan(sums[3])
    assert np.all(np.isfinite(sums[5::2]))
    mins, maxs = backend.to_numpy(warpfold.min(x, dim=1)), backend.to_numpy(warpfold.max(x, dim=1))
    assert np.all(np.isnan(mins[::2])) and np.all(np.isnan(maxs[::2])) and maxs[1] == np.inf and mins[3] == -np.inf
    first_nan = np.argmax(np.isnan(values), axis=1)
    assert np.array_equal(backend.to_numpy(warpfold.argmin(x, dim=1))[::2], first_nan[::2])
    assert np.array_equal(backend.to_numpy(warpfold.argmax(x, dim=1))[::2], first_nan[::2])
    assert np.isnan(backend.to_numpy(warpfold.sum(x, dim=0))[nan_at[0]])  # columns too


def test_empty_dims(backend):
    rng = np.random.default_rng()
    x, _ = device_array(backend, "float32", (3, 4), random_values, rng)
    empty_cols = x[:, :0]
    assert np.array_equal(backend.to_numpy(warpfold.sum(empty_cols, dim=1)), np.zeros(3, np.float32))
    assert np.array_equal(backend.to_numpy(warpfold.prod(empty_cols, dim=1)), np.ones(3, np.float32))
    assert tuple(warpfold.sum(empty_cols, dim=0).shape) == (0,)
    assert tuple(warpfold.max(empty_cols, dim=0).shape) == (0,)  # no outputs: nothing to reduce, no error
    for fn in (warpfold.min, warpfold.max, warpfold.argmin, warpfold.argmax):
        with pytest.raises(ValueError, match="hold no element"):
            fn(empty_cols, dim=1)


def test_every_dim_and_keepdim(backend):
    rng = np.random.default_rng()
    x, values = device_array(backend, "int32", (4, 1, 6), random_values, rng)
    total = int(values.astype(np.int64).sum())
    for dim in (None, (), (0, 1, 2)):
        r = warpfold.sum(x, dim=dim, keepdim=True)
        assert tuple(r.shape) == (1, 1, 1) and int(r.reshape(()).item()) == total
    assert tuple(warpfold.sum(x, dim=(0, 2)).shape) == (1,)  # every dim of size > 1: the full reduce
    r = warpfold.argmax(x, keepdim=True)
    assert tuple(r.shape) == (1, 1, 1) and int(r.reshape(()).item()) == int(np.argmax(values))
    scalar = x[0, 0, 0]
    assert int(warpfold.sum(scalar, dim=0).item()) == int(values[0, 0, 0]) and warpfold.sum(scalar, dim=-1).shape == ()


def test_out_along_dims(backend):
    rng = np.random.default_rng()
    x, values = device_array(backend, "float32", (50, 40), lambda d, n, g: quarter_values(n, g), rng)
    out = backend.upload(np.zeros(40), "float32", 0)
    assert warpfold.sum(x, dim=0, out=out) is out
    assert np.array_equal(backend.to_numpy(out), values.sum(axis=0))


def test_torch_stream_and_graph_along_dims(torch_cuda):
    torch = torch_cuda
    rng = np.random.default_rng()
    x = torch.from_numpy(quarter_values(1 << 20, rng).astype(np.float32)).cuda().reshape(1024, 1024)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    r = warpfold.sum(x, dim=0, stream=side)
    side.synchronize()
    assert torch.equal(r, x.sum(dim=0))
    with torch.cuda.stream(side):  # warm-up on a side stream, as PyTorch asks before a capture
        warpfold.sum(x, dim=(0,)), warpfold.max(x.T, dim=1)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        columns = warpfold.sum(x, dim=0)
        largest = warpfold.max(x.T, dim=1)
    for _ in range(2):
        x.copy_(torch.from_numpy(quarter_values(1 << 20, rng).astype(np.float32)).reshape(1024, 1024))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(columns, x.sum(dim=0)) and torch.equal(largest, x.amax(dim=0))


def test_torch_results_along_dims_are_laid_out_as_torch_empty(torch_cuda):
    """Results along dims have the strides torch.empty gives their shape, at every rank, with
    dims of size 1 and with every dim of size 1, and are tensors of their own call after call
    (made like a 0-d template expanded to their shape, or by torch.empty where that would be
    dense)."""
    torch = torch_cuda
    rng = np.random.default_rng()
    cases = [((3, 4, 5, 6, 7), 2), ((2, 3, 4, 5), 1), ((2, 3, 4, 5), 3), ((5, 6, 7), 0), ((1, 6, 1), 1),
             ((1, 1, 9), 2), ((4, 1), 0), ((1, 64), 1)]
    for shape, dim in cases:
        x = torch.from_numpy(quarter_values(math.prod(shape), rng).astype(np.float32)).cuda().reshape(shape)
        for keepdim in (False, True):
            results = [warpfold.sum(x, dim=dim, keepdim=keepdim) for _ in range(2)]
            expected = x.sum(dim=dim, keepdim=keepdim)
            for r in results:
                assert r.stride() == torch.empty(expected.shape).stride(), (shape, dim, keepdim)
                assert torch.equal(r, expected), (shape, dim, keepdim)
            assert results[0].numel() == 0 or results[0].data_ptr() != results[1].data_ptr()
