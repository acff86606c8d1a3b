"""warpfold against the caller's framework (torch.sum, cupy.sum) and a NumPy reference, for every
dtype and operator, at odd sizes, at offsets into a larger array whose other elements are
poison, with NaN and infinities. Needs a CUDA device (skipped without)."""

import math

import pytest

np = pytest.importorskip("numpy")  # the references; without it these tests skip

from reference import (ROUNDOFF, close_to, product_values, quarter_values, random_values, rounded,  # noqa: E402
                       sum_bound, wrapped)

import warpfold  # noqa: E402
from warpfold._dtypes import FLOATS, HALVES, SUPPORTED, default_result  # noqa: E402

SIZES = [1, 2, 3, 17, 255, 1000, 4097, 65537, 1_000_003]
OFFSETS = [0, 1, 3]
INTEGERS = [d for d in SUPPORTED if d not in FLOATS]
RESULT_ULPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}


def cases(backend, dtype, make, rng):
    """(n, offset, device slice, its host copy) for every size and offset."""
    for n in SIZES:
        for offset in OFFSETS:
            x = backend.upload(make(dtype, n, rng), dtype, offset)
            yield n, offset, x, backend.to_numpy(x)


def check_result(backend, r, x, dtype):
    assert backend.dtype_name(r) == dtype
    assert tuple(r.shape) == ()
    assert r.device == x.device


def float_bound(result, n, abs_reference, magnitude):
    """The fold's bound in its float32/float64 accumulator plus the rounding to `result`."""
    acc = "float64" if result == "float64" else "float32"
    return sum_bound(n, ROUNDOFF[acc], abs_reference) + RESULT_ULPS[result] * abs(magnitude)


def check_float_sum(r, values, result, where):
    """r against the exact sum of `values` rounded to `result`, within the fold's bound."""
    reference = math.fsum(values.astype(np.float64))
    bound = float_bound(result, len(values), float(np.abs(values.astype(np.float64)).sum()), reference)
    assert close_to(float(r.item()), rounded(reference, result), bound), where
    return bound


def own_sum(backend, x):
    """The framework's own sum, where it has one for this dtype (and accumulates halves in float32,
    as PyTorch does)."""
    if backend.name == "cupy" and backend.dtype_name(x) in HALVES:
        return None
    try:
        return backend.own_sum(x).item()
    except (RuntimeError, TypeError, NotImplementedError):
        return None


def check_folds(backend, dtype, op, make, check_float):
    """warpfold.<op> at every size and offset: the result's type, integer results exactly (with
    wraparound), float results by check_float(r, x, values, result, where)."""
    result = default_result(op, dtype, backend.family)
    for n, offset, x, values in cases(backend, dtype, make, np.random.default_rng()):
        r = getattr(warpfold, op)(x)
        check_result(backend, r, x, result)
        where = f"n={n} offset={offset}"
        if dtype in FLOATS:
            check_float(r, x, values, result, where)
        else:
            assert int(r.item()) == int(wrapped(values, result, op)), where


@pytest.mark.parametrize("dtype", SUPPORTED)
def test_sum(backend, dtype):
    def check_float(r, x, values, result, where):
        bound = check_float_sum(r, values, result, where)
        theirs = own_sum(backend, x)
        assert theirs is None or close_to(float(r.item()), float(theirs), 2 * bound), where

    check_folds(backend, dtype, "sum", random_values, check_float)
    x = backend.upload(random_values(dtype, 4099, np.random.default_rng()), dtype, 1)
    theirs = own_sum(backend, x)
    if dtype not in FLOATS and theirs is not None:
        assert int(warpfold.sum(x).item()) == int(theirs)


@pytest.mark.parametrize("dtype", FLOATS)
def test_exact_float_sums(backend, dtype):
    """Quarters: every partial sum exact, so any fold order gives the exact total bit for bit."""
    rng = np.random.default_rng()
    for n, offset, x, values in cases(backend, dtype, lambda d, n, g: quarter_values(n, g), rng):
        r = warpfold.sum(x)
        assert float(r.item()) == rounded(float(values.astype(np.float64).sum()), dtype), f"n={n} offset={offset}"
    if dtype not in HALVES:
        big = backend.upload(rng.integers(0, 2, 2**23 + 5).astype(np.float64), dtype, 1)  # below 2^24: exact
        assert float(warpfold.sum(big).item()) == float(backend.to_numpy(big).astype(np.float64).sum())


def test_large_integer_sum(backend):
    rng = np.random.default_rng()
    x = backend.upload(random_values("int32", 2**26 + 3, rng), "int32", 3)
    assert int(warpfold.sum(x).item()) == int(backend.to_numpy(x).astype(np.int64).sum())


@pytest.mark.parametrize("dtype", SUPPORTED)
def test_prod(backend, dtype):
    def check_float(r, x, values, result, where):
        reference = float(np.prod(values.astype(np.float64)))
        acc = "float64" if result == "float64" else "float32"
        # Every multiplication's rounding reaches the product whatever the fold order: (n - 1)·u.
        bound = max(len(values) - 1, 1) * ROUNDOFF[acc] * abs(reference) + RESULT_ULPS[result] * abs(reference)
        assert close_to(float(r.item()), reference, bound), where

    check_folds(backend, dtype, "prod", product_values, check_float)


@pytest.mark.parametrize("dtype", SUPPORTED)
def test_min_max_argmin_argmax(backend, dtype):
    rng = np.random.default_rng()
    for n, offset, x, values in cases(backend, dtype, random_values, rng):
        if dtype in FLOATS and rng.integers(2):
            x = backend.upload(np.round(values.astype(np.float64) * 4) / 4, dtype, offset)  # ties: first index wins
            values = backend.to_numpy(x)
        where = f"n={n} offset={offset}"
        for fn, expect in ((warpfold.min, np.min), (warpfold.max, np.max)):
            r = fn(x)
            check_result(backend, r, x, dtype)
            assert r.item() == expect(values).item(), where
        for fn, expect in ((warpfold.argmin, np.argmin), (warpfold.argmax, np.argmax)):
            r = fn(x)
            check_result(backend, r, x, "int64")
            assert r.item() == expect(values), where


@pytest.mark.parametrize("dtype", INTEGERS)
def test_bitwise(backend, dtype):
    rng = np.random.default_rng()
    ufuncs = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
    if dtype == "bool":
        ufuncs = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
    for n, offset, x, values in cases(backend, dtype, random_values, rng):
        if dtype != "bool" and rng.integers(2):  # mostly-set bits, so that `and` is not simply 0
            x = backend.upload(values | np.dtype(dtype).type(np.iinfo(np.dtype(dtype)).max - 7), dtype, offset)
            values = backend.to_numpy(x)
        for op, ufunc in ufuncs.items():
            r = warpfold.reduce(x, op)
            check_result(backend, r, x, dtype)
            assert r.item() == ufunc.reduce(values).item(), f"{op} n={n} offset={offset}"


@pytest.mark.parametrize("dtype, requested", [
    ("int8", "int32"), ("uint8", "int64"), ("int32", "float64"), ("uint16", "uint32"),
    ("float16", "float32"), ("bfloat16", "float64"), ("float32", "float64"), ("float32", "float16"),
])
def test_dtype_argument(backend, dtype, requested):
    rng = np.random.default_rng()
    for n, offset, x, values in cases(backend, dtype, random_values, rng):
        r = warpfold.sum(x, dtype=requested)
        check_result(backend, r, x, requested)
        where = f"n={n} offset={offset}"
        if requested in FLOATS:
            check_float_sum(r, values, requested, where)
        else:
            assert int(r.item()) == int(wrapped(values, requested, "sum")), where


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_and_infinities(backend, dtype):
    rng = np.random.default_rng()
    n = 4099
    for offset in OFFSETS:
        values = random_values(dtype, n, rng)
        first, second = sorted(rng.choice(n, 2, replace=False))
        with_nan = values.copy()
        with_nan[[first, second]] = np.nan
        x = backend.upload(with_nan, dtype, offset)
        for fn in (warpfold.sum, warpfold.prod, warpfold.min, warpfold.max):
            assert math.isnan(float(fn(x).item()))
        assert warpfold.argmin(x).item() == first and warpfold.argmax(x).item() == first
        with_inf = values.copy()
        with_inf[first] = np.inf
        x = backend.upload(with_inf, dtype, offset)
        assert float(warpfold.sum(x).item()) == math.inf and float(warpfold.max(x).item()) == math.inf
        assert warpfold.argmax(x).item() == first
        with_inf[second] = -np.inf
        x = backend.upload(with_inf, dtype, offset)
        assert math.isnan(float(warpfold.sum(x).item()))
        assert float(warpfold.min(x).item()) == -math.inf and warpfold.argmin(x).item() == second


REPRODUCIBLE_BOUND = {"float32": (2.0**-26, 2.0**-23), "float64": (2.0**-80, 2.0**-52)}  # (n·max|x| factor, eps)


def signed_values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform in [-1, 1): a sum near 0, which float16 holds at every size."""
    return rng.uniform(-1.0, 1.0, n)


@pytest.mark.parametrize("dtype", FLOATS)
def test_reproducible_sum(backend, dtype):
    """Within the binned sum's bound of the exact sum, rounded to the result's type; the same bits
    for the same values in another order and at another offset; dtype=float32 for halves gives the
    float sum that the half result rounds. 3,000,017 elements take the wide kernel (above 4 MiB)."""
    rng = np.random.default_rng()
    acc = "float64" if dtype == "float64" else "float32"
    per_element, eps = REPRODUCIBLE_BOUND[acc]
    large = backend.upload(signed_values(dtype, 3_000_017, rng), dtype, 1)
    for n, offset, x, values in [*cases(backend, dtype, signed_values, rng),
                                 (len(large), 1, large, backend.to_numpy(large))]:
        r = warpfold.reproducible_sum(x)
        check_result(backend, r, x, dtype)
        wide = values.astype(np.float64)
        exact = math.fsum(wide)
        bound = n * per_element * float(np.abs(wide).max()) + 7 * eps * abs(exact)
        reference = exact
        if dtype in HALVES:  # rounded to the result (inf past float16's range)
            reference = rounded(exact, dtype)
            bound += RESULT_ULPS[dtype] * (abs(exact) + bound)
        where = f"n={n} offset={offset}"
        assert close_to(float(r.item()), reference, bound), where
        shuffled = backend.upload(rng.permutation(values.astype(np.float64)), dtype, (offset + 1) % 4)
        assert float(warpfold.reproducible_sum(shuffled).item()) == float(r.item()), where
        if dtype in HALVES:
            as_float = warpfold.reproducible_sum(x, dtype="float32")
            check_result(backend, as_float, x, "float32")
            assert float(r.item()) == rounded(float(as_float.item()), dtype), where


@pytest.mark.parametrize("dtype", FLOATS)
def test_reproducible_sum_specials(backend, dtype):
    """NaN, +inf with -inf: NaN; an infinity alone: that infinity; no element: +0.0; integers: no."""
    rng = np.random.default_rng()
    values = random_values(dtype, 1001, rng)
    first, second = sorted(rng.choice(len(values), 2, replace=False))
    for specials, expect in (((np.nan,), math.nan), ((np.inf, -np.inf), math.nan), ((-np.inf,), -math.inf)):
        v = values.copy()
        v[[first, second][:len(specials)]] = specials
        assert close_to(float(warpfold.reproducible_sum(backend.upload(v, dtype, 1)).item()), expect, 0.0)
    empty = float(warpfold.reproducible_sum(backend.upload(values, dtype, 0)[:0]).item())
    assert empty == 0.0 and math.copysign(1.0, empty) == 1.0
    with pytest.raises(TypeError, match="reproducible_sum is compiled for"):
        warpfold.reproducible_sum(backend.upload(random_values("int32", 8, rng), "int32", 0))


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_empty_arrays(backend, dtype):
    x = backend.upload(random_values(dtype, 5, np.random.default_rng()), dtype, 0)[:0]
    assert warpfold.sum(x).item() == 0 and warpfold.prod(x).item() == 1
    for fn in (warpfold.min, warpfold.max, warpfold.argmin, warpfold.argmax):
        with pytest.raises(ValueError, match="empty"):
            fn(x)


def test_layouts(backend):
    rng = np.random.default_rng()
    flat = backend.upload(random_values("int32", 12 * 7, rng), "int32", 1)
    values = backend.to_numpy(flat).astype(np.int64)
    matrix = flat.reshape(12, 7)
    assert int(warpfold.sum(matrix).item()) == int(values.sum())
    assert int(warpfold.sum(matrix.T).item()) == int(values.sum())  # dense, another order
    if backend.name == "cupy":  # negative strides (PyTorch has none)
        assert int(warpfold.sum(matrix[::-1]).item()) == int(values.sum())
    assert warpfold.argmax(matrix).item() == int(np.argmax(values))
    with pytest.raises(ValueError, match="C-contiguous"):
        warpfold.argmax(matrix.T)
    with pytest.raises(ValueError, match="not contiguous"):
        warpfold.sum(flat[::2])
    with pytest.raises(ValueError, match="not contiguous"):
        warpfold.sum(matrix[:, :3])
