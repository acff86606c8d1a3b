"""dim=, keepdim= and the segmented calls: what is compiled, and every error a caller can cause
before the first CUDA call. No GPU needed; CI runs these."""

import pytest

import warpfold
from warpfold import _axis, _dtypes, _segmented
from warpfold import _warpfold as ext

from test_errors import FakeDeviceArray

AXIS_TYPES = ("int32", "int64", "float32", "float64")  # prod, min, max, argmin, argmax along dims


def matrix(typestr="<f4", shape=(10, 100), strides=None, readonly=False):
    return FakeDeviceArray(shape=shape, typestr=typestr, strides=strides, readonly=readonly)


@pytest.mark.parametrize("kind", ["full", "axis", "segmented"])
def test_entry_keys_are_unique(kind):
    keys = ext.entry_keys(kind)
    assert keys and len(keys) == len(set(keys))
    with pytest.raises(ValueError, match="no reduce entries of kind"):
        ext.entry_keys("sideways")


@pytest.mark.parametrize("family", ["torch", "numpy"])
@pytest.mark.parametrize("dtype", _dtypes.SUPPORTED)
def test_every_dtype_sums_along_dims_and_per_segment(family, dtype):
    plan = _axis.AXIS.plan("sum", dtype, family, None)
    assert plan.result == _dtypes.default_result("sum", dtype, family)
    assert ext.entry_keys("axis")[plan.index] == _dtypes.entry_key("sum", dtype, plan.result)
    for offsets in _segmented.OFFSET_TYPES:
        p = _segmented.SEGMENTED.plan("sum", dtype, family, None, "/" + offsets)
        assert ext.entry_keys("segmented")[p.index] == _dtypes.entry_key("sum", dtype, p.result) + "/" + offsets


@pytest.mark.parametrize("dtype", _dtypes.SUPPORTED)
def test_other_ops_along_dims_cover_four_types(dtype):
    for op in ("prod", "min", "max", "argmin", "argmax"):
        if dtype in AXIS_TYPES:
            assert _axis.AXIS.plan(op, dtype, "torch", None).result == _dtypes.default_result(op, dtype, "torch")
        else:
            with pytest.raises(TypeError, match=f"{op} along dim= is compiled for int32, int64, float32, float64, "
                                                f"not {dtype}"):
                _axis.AXIS.plan(op, dtype, "torch", None)
    for op in ("min", "max"):
        for offsets in ("/int32", "/int64"):
            if dtype in AXIS_TYPES:
                _segmented.SEGMENTED.plan(op, dtype, "numpy", None, offsets)
            else:
                with pytest.raises(TypeError, match=f"{op} per segment is compiled for int32, int64, float32, float64"):
                    _segmented.SEGMENTED.plan(op, dtype, "numpy", None, offsets)


def test_passes_have_entries():
    """A reduce in passes reads partial results of the accumulator's type: those entries exist."""
    for family in ("torch", "numpy"):
        for dtype in _dtypes.SUPPORTED:
            final = _axis.AXIS.plan("sum", dtype, family, None)
            assert len(_axis._pass_plans("sum", dtype, family, final, 3)) == 3
        for op in ("prod", "min", "max"):
            for dtype in AXIS_TYPES:
                final = _axis.AXIS.plan(op, dtype, family, None)
                assert len(_axis._pass_plans(op, dtype, family, final, 2)) == 2


@pytest.mark.parametrize("call, error, text", [
    (lambda x: warpfold.sum(x, dim=2), IndexError, "out of range"),
    (lambda x: warpfold.sum(x, dim=(0, -2)), ValueError, "appears more than once"),
    (lambda x: warpfold.max(x, 1.5), TypeError, "dim= takes an int"),
    (lambda x: warpfold.argmax(x, dim=(0, 1)), TypeError, "argmax takes one dim"),
    (lambda x: warpfold.sum(x, dim=1, dtype="float64"), TypeError,
     "sum along dim= of float32 cannot return float64: dtype= takes float16, bfloat16, float32"),
    (lambda x: warpfold.min(x, dim=1, keepdim=True, out=matrix(shape=(10,))), ValueError,
     r"out has shape \(10,\), the result has shape \(10, 1\)"),
    (lambda x: warpfold.sum(x, dim=0, out=matrix(typestr="<f8", shape=(100,))), TypeError, "out has dtype float64"),
    (lambda x: warpfold.sum(x, dim=0, out=matrix(shape=(100,), readonly=True)), ValueError, "read-only"),
    (lambda x: warpfold.sum(x, dim=0, out=matrix(shape=(100,), strides=(8,))), ValueError, "C-contiguous"),
])
def test_bad_calls_along_dims(call, error, text):
    with pytest.raises(error, match=text):
        call(matrix())


@pytest.mark.parametrize("typestr, op, text", [
    ("<f2", "prod", "prod along dim= is compiled for int32, int64, float32, float64, not float16"),
    ("|i1", "min", "min along dim= is compiled for int32, int64, float32, float64, not int8"),
    ("<u4", "argmin", "argmin along dim= is compiled for int32, int64, float32, float64, not uint32"),
    ("<i4", "xor", "xor along dim= is compiled for no dtype"),
    ("<c8", "sum", "unsupported dtype complex64"),
])
def test_uncompiled_types_along_dims(typestr, op, text):
    with pytest.raises(TypeError, match=text):
        warpfold.reduce(matrix(typestr), op, dim=1) if op not in _dtypes.SEARCHES else \
            getattr(warpfold, op)(matrix(typestr), dim=1)


@pytest.mark.parametrize("fn", [warpfold.min, warpfold.max, warpfold.argmin, warpfold.argmax])
def test_searches_along_empty_dims(fn):
    with pytest.raises(ValueError, match="the reduced dims hold no element"):
        fn(matrix(shape=(3, 0)), dim=1)
    with pytest.raises(ValueError, match="the reduced dims hold no element"):
        fn(matrix(shape=(0, 0)), dim=0)


def test_layouts_only_frameworks_copy():
    """Three runs of kept dims are no [outer][axis][inner]: PyTorch and CuPy arrays are copied,
    other producers' get a ValueError."""
    x = FakeDeviceArray(shape=(2, 2, 2, 2), strides=(16, 4, 32, 8))
    with pytest.raises(ValueError, match="cannot be reduced along dim=3 in place"):
        warpfold.sum(x, dim=3)


@pytest.mark.parametrize("offsets, error, text", [
    (FakeDeviceArray(shape=(5,), typestr="<f4"), TypeError, "offsets must be int32 or int64"),
    (FakeDeviceArray(shape=(5,), typestr="<u8"), TypeError, "not uint64"),
    (FakeDeviceArray(shape=(2, 3), typestr="<i8"), ValueError, "one-dimensional"),
    (FakeDeviceArray(shape=(0,), typestr="<i4"), ValueError, "offsets is empty"),
    (FakeDeviceArray(shape=(5,), typestr="<i4", strides=(8,)), ValueError, r"contiguous \(stride 1\)"),
    ([0, 3, 5], TypeError, "must be an array"),
])
def test_bad_offsets(offsets, error, text):
    with pytest.raises(error, match=text):
        warpfold.segmented_sum(FakeDeviceArray(shape=(100,)), offsets)


def test_bad_segmented_calls():
    offsets = FakeDeviceArray(shape=(4,), typestr="<i4")
    with pytest.raises(TypeError, match="min per segment is compiled for int32, int64, float32, float64, not int8"):
        warpfold.segmented_min(FakeDeviceArray(typestr="|i1"), offsets)
    with pytest.raises(TypeError, match="unsupported dtype complex64"):
        warpfold.segmented_sum(FakeDeviceArray(typestr="<c8"), offsets)
    with pytest.raises(ValueError, match="x is not C-contiguous"):
        warpfold.segmented_sum(FakeDeviceArray(shape=(10, 10), strides=(4, 40)), offsets)
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match="host memory"):
        warpfold.segmented_sum(FakeDeviceArray(), np.array([0, 3], dtype=np.int32))
