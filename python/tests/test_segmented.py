"""segmented_sum, segmented_min and segmented_max against a NumPy reference: every compiled dtype,
int32 and int64 offsets, empty, one-element and long segments, offsets out of range (clamped)
and decreasing (empty), NaN. Needs a CUDA device (skipped without)."""

import math

import pytest

np = pytest.importorskip("numpy")  # the references; without it these tests skip

from reference import ROUNDOFF, random_values  # noqa: E402

import warpfold  # noqa: E402
from warpfold._dtypes import FLOATS, HALVES, SUPPORTED, default_result  # noqa: E402

RESULT_ULPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
EXTREME_TYPES = ("int32", "int64", "float32", "float64")


def segment_lengths(rng):
    """Empty, one-element, short, warp-sized, block-sized and long segments, shuffled."""
    lengths = [0, 0, 1, 1, 1, 2, 3, 17, 64, 65, 1000, 4097, 40_000, 300_001] + list(rng.integers(0, 9, 200))
    rng.shuffle(lengths)
    return np.array(lengths, dtype=np.int64)


def offsets_array(backend, lengths, offset_type):
    bounds = np.concatenate([[0], np.cumsum(lengths)]).astype(offset_type)
    return backend.upload(bounds.astype(np.int64), offset_type, 2), bounds  # at an offset into poison


def clamped_segments(bounds, n):
    """(begin, end) of each segment as the library reads them: clamped to [0, n], end <= begin empty."""
    clamped = np.clip(bounds.astype(np.int64), 0, n)
    return [(int(b), int(max(e, b))) for b, e in zip(clamped[:-1], clamped[1:])]


def check_sums(backend, r, values, segments, result, where):
    assert backend.dtype_name(r) == result and tuple(r.shape) == (len(segments),), where
    got = backend.to_numpy(r)
    for s, (b, e) in enumerate(segments):
        part = values[b:e]
        if result in FLOATS:
            exact = math.fsum(part.astype(np.float64))
            acc = "float64" if result == "float64" else "float32"
            bound = len(part) * ROUNDOFF[acc] * float(np.abs(part.astype(np.float64)).sum())
            bound += RESULT_ULPS[result] * abs(exact) + 1e-300
            assert abs(float(got[s]) - exact) <= bound, f"{where} segment {s} [{b}, {e})"
        else:
            with np.errstate(over="ignore"):
                expected = part.astype(np.dtype(result)).sum(dtype=np.dtype(result))
            assert got[s] == expected, f"{where} segment {s} [{b}, {e})"


@pytest.mark.parametrize("offset_type", ["int32", "int64"])
@pytest.mark.parametrize("dtype", SUPPORTED)
def test_segmented_sum(backend, dtype, offset_type):
    rng = np.random.default_rng()
    lengths = segment_lengths(rng)
    n = int(lengths.sum())
    scale = 1 / 16 if dtype in HALVES else 1  # the longest segment's float16 sum stays finite
    x = backend.upload(random_values(dtype, n, rng) * scale, dtype, 1)
    values = backend.to_numpy(x)
    offsets, bounds = offsets_array(backend, lengths, offset_type)
    r = warpfold.segmented_sum(x, offsets)
    result = default_result("sum", dtype, backend.family)
    check_sums(backend, r, values, clamped_segments(bounds, n), result, f"{dtype} {offset_type}")


@pytest.mark.parametrize("offset_type", ["int32", "int64"])
def test_offsets_are_clamped(backend, offset_type):
    rng = np.random.default_rng()
    n = 1000
    x = backend.upload(random_values("int32", n, rng), "int32", 0)
    values = backend.to_numpy(x)
    bounds = np.array([-5, 10, 3, 500, 2000, 2000, 999, 10**6], dtype=np.int64)  # negative, decreasing, past n
    offsets = backend.upload(bounds, offset_type, 0)
    r = warpfold.segmented_sum(x, offsets)
    check_sums(backend, r, values, clamped_segments(bounds, n), default_result("sum", "int32", backend.family),
               "clamped")
    single = warpfold.segmented_sum(x, backend.upload(np.array([7]), offset_type, 0))
    assert tuple(single.shape) == (0,)  # one boundary: no segment


@pytest.mark.parametrize("dtype", EXTREME_TYPES)
def test_segmented_min_max(backend, dtype):
    rng = np.random.default_rng()
    lengths = segment_lengths(rng)
    n = int(lengths.sum())
    x = backend.upload(random_values(dtype, n, rng), dtype, 1)
    values = backend.to_numpy(x)
    offsets, bounds = offsets_array(backend, lengths, "int64")
    segments = clamped_segments(bounds, n)
    for fn, pick, empty in ((warpfold.segmented_min, np.min, "highest"), (warpfold.segmented_max, np.max, "lowest")):
        got = backend.to_numpy(fn(x, offsets))
        for s, (b, e) in enumerate(segments):
            if e > b:
                assert got[s] == pick(values[b:e]), f"{fn.__name__} segment {s}"
            elif dtype in FLOATS:
                assert got[s] == (math.inf if empty == "highest" else -math.inf)
            else:
                info = np.iinfo(np.dtype(dtype))
                assert got[s] == (info.max if empty == "highest" else info.min)


def test_segmented_nan(backend):
    values = np.arange(100, dtype=np.float64)
    values[[13, 60]] = np.nan
    x = backend.upload(values, "float32", 0)
    offsets = backend.upload(np.array([0, 10, 20, 50, 100]), "int32", 0)
    sums = backend.to_numpy(warpfold.segmented_sum(x, offsets))
    assert np.isnan(sums[1]) and np.isnan(sums[3]) and sums[0] == 45 and sums[2] == sum(range(20, 50))
    assert np.isnan(backend.to_numpy(warpfold.segmented_max(x, offsets))[1])


def test_segmented_of_a_matrix(backend):
    """x is read flat, in C order; a transposed x is copied by its framework first."""
    rng = np.random.default_rng()
    x = backend.upload(random_values("int64", 60, rng), "int64", 0).reshape(6, 10)
    offsets = backend.upload(np.array([0, 10, 35, 60]), "int64", 0)
    flat = backend.to_numpy(x).ravel()
    got = backend.to_numpy(warpfold.segmented_sum(x, offsets))
    assert list(got) == [flat[:10].sum(), flat[10:35].sum(), flat[35:].sum()]
    flat_t = backend.to_numpy(x.T).ravel()
    got_t = backend.to_numpy(warpfold.segmented_sum(x.T, offsets))
    assert list(got_t) == [flat_t[:10].sum(), flat_t[10:35].sum(), flat_t[35:].sum()]
