"""What warpfold decides before its first CUDA call: types, layouts and every error a caller can
cause. None of these tests needs a GPU; they run on CI's machine too."""

import array
import importlib
import importlib.util
import os
import pathlib

import pytest

import warpfold
from warpfold import _core, _dtypes, _layout
from warpfold import _warpfold as ext

NO_DEVICE = ext.device_count() == 0
UNBACKED = 0x7F0000000000  # an address no allocation backs: these arrays are never read


class FakeDeviceArray:
    """Only __cuda_array_interface__ (set on the instance), over memory nothing backs."""

    def __init__(self, shape=(1000,), typestr="<f4", strides=None, readonly=False, mask=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (UNBACKED, readonly),
                                         "strides": strides, "mask": mask, "version": 3}


class FakeDeviceArrayProperty:
    """The same interface as a class property, as most producers define it."""

    def __init__(self, shape=(1000,), typestr="<f4"):
        self._interface = {"shape": shape, "typestr": typestr, "data": (UNBACKED, False), "version": 2}

    @property
    def __cuda_array_interface__(self):
        return self._interface


class HostDLPack:
    """A DLPack producer that says its data is on the CPU."""

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("a CPU array must be refused before its capsule is asked for")


def test_package_exports_the_functions():
    for name in ("sum", "prod", "min", "max", "argmin", "argmax", "reduce"):
        assert callable(getattr(warpfold, name))
    assert warpfold.__version__


@pytest.mark.parametrize("name, call", [
    ("sum", lambda: warpfold.sum(FakeDeviceArray(), 0, True)),  # keepdim is keyword-only
    ("sum", lambda: warpfold.sum(FakeDeviceArray(), axis=0)),
    ("min", lambda: warpfold.min(FakeDeviceArray(), dtype="float64")),
    ("argmax", lambda: warpfold.argmax(FakeDeviceArray(), out=None)),
    ("reproducible_sum", lambda: warpfold.reproducible_sum(FakeDeviceArray(), dim=0)),
    ("prod", lambda: warpfold.prod()),
])
def test_arguments_a_function_does_not_take_are_type_errors(name, call):
    with pytest.raises(TypeError, match=rf"{name}\(x, "):  # the message shows the parameters
        call()


def test_the_functions_show_their_parameters_and_docs():
    assert warpfold.sum.__name__ == "sum" and warpfold.sum.__module__ == "warpfold"
    assert warpfold.sum.__doc__.startswith("sum(x, dim=None, *, keepdim=False, dtype=None, out=None, stream=None)\n")
    assert "accumulator" in warpfold.sum.__doc__
    assert warpfold.reproducible_sum.__doc__.startswith("reproducible_sum(x, *, dtype=None, out=None, stream=None)")
    with pytest.raises(ValueError, match="no entry point"):
        ext.entry_point("mean", "", importlib.import_module("warpfold._dtypes"))


@pytest.mark.parametrize("family", ["torch", "numpy"])
@pytest.mark.parametrize("dtype", _dtypes.SUPPORTED)
def test_every_default_has_a_compiled_entry(family, dtype):
    ops = ("sum", "prod", "min", "max", "argmin", "argmax")
    if dtype not in _dtypes.FLOATS:
        ops += _dtypes.BITWISE
    for op in ops:
        plan = _core.plan(op, dtype, family, None)
        assert plan.result == _dtypes.default_result(op, dtype, family)
        assert ext.entry_keys()[plan.index] == _dtypes.entry_key(op, dtype, plan.result)


@pytest.mark.parametrize("dtype, torch_sum, numpy_sum", [
    ("bool", "int64", "int64"), ("int8", "int64", "int64"), ("uint8", "int64", "uint64"),
    ("int16", "int64", "int64"), ("uint16", "int64", "uint64"), ("int32", "int64", "int64"),
    ("uint32", "int64", "uint64"), ("int64", "int64", "int64"), ("uint64", "int64", "uint64"),
    ("float16", "float16", "float16"), ("bfloat16", "bfloat16", "bfloat16"),
    ("float32", "float32", "float32"), ("float64", "float64", "float64"),
])
def test_sum_and_prod_types_follow_the_framework(dtype, torch_sum, numpy_sum):
    for op in ("sum", "prod"):
        assert _core.plan(op, dtype, "torch", None).result == torch_sum
        assert _core.plan(op, dtype, "numpy", None).result == numpy_sum
    assert _core.plan("max", dtype, "torch", None).result == dtype
    assert _core.plan("argmin", dtype, "numpy", None).result == "int64"


def test_half_types_accumulate_in_float32():
    assert _dtypes.entry_key("sum", "float16", "float16") == "sum/float16/float32/float16"
    assert _dtypes.entry_key("sum", "bfloat16", "float32") == "sum/bfloat16/float32/float32"
    assert _dtypes.entry_key("sum", "int8", "int64") == "sum/int8/uint64/uint64"


def test_dtype_argument():
    assert _core.plan("sum", "int8", "torch", "int32").result == "int32"
    assert _core.plan("sum", "float16", "torch", "float32").result == "float32"
    assert _core.plan("sum", "float32", "numpy", float).result == "float64"
    assert _core.plan("prod", "uint8", "numpy", "int64").result == "int64"
    with pytest.raises(TypeError, match="dtype= takes"):
        _core.plan("sum", "float32", "numpy", "int64")
    with pytest.raises(TypeError, match="dtype= applies to sums and products"):
        _core.plan("min", "float32", "numpy", "float64")
    with pytest.raises(TypeError, match="unsupported dtype"):
        _core.plan("sum", "float32", "numpy", "complex64")
    with pytest.raises(TypeError, match="dtype= must be a dtype"):
        warpfold.sum(FakeDeviceArray(), dtype=["float64"])


def test_reproducible_sum_plans():
    """Floats only; halves give their own type or float32, float32 and float64 their own."""
    for dtype, requested, result in [("float16", None, "float16"), ("bfloat16", "float32", "float32"),
                                     ("float32", None, "float32"), ("float64", None, "float64")]:
        assert _core.plan("reproducible_sum", dtype, "torch", requested).result == result
    with pytest.raises(TypeError, match="dtype= takes float32 for float32 input"):
        _core.plan("reproducible_sum", "float32", "numpy", "float64")
    with pytest.raises(TypeError, match=r"compiled for float16, bfloat16, float32, float64, not int32: [^(]*$"):
        _core.plan("reproducible_sum", "int32", "numpy", None)


def test_too_many_elements_for_a_float_reproducible_sum():
    """The extension refuses a count beyond the float accumulator's capacity before any CUDA call."""
    index = ext.entry_keys().index("reproducible_sum/float32/float32/float32")
    with pytest.raises(ValueError, match="reproducible_sum in float32 takes at most 4294966784 elements, not"):
        ext.run(index, 0, 1, 2**32, 1, 1, 0, 0)


def test_host_arrays_are_refused_naming_the_device():
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match=r"host memory \(cpu\)"):
        warpfold.sum(np.arange(10, dtype=np.float32))
    with pytest.raises(TypeError, match="on cpu"):
        warpfold.sum(array.array("f", [1.0, 2.0]))  # the buffer protocol, read by nanobind
    with pytest.raises(TypeError, match="on cpu"):
        warpfold.max(HostDLPack())


@pytest.mark.parametrize("thing", [[1.0, 2.0], None, 3.0, "abc"])
def test_non_arrays_are_refused(thing):
    with pytest.raises(TypeError, match="must be an array"):
        warpfold.sum(thing)


@pytest.mark.parametrize("typestr, dtype", [("<c8", "complex64"), ("<f16", "float128"), ("|V2", "typestr")])
def test_unsupported_dtypes_are_type_errors(typestr, dtype):
    with pytest.raises(TypeError, match=f"unsupported dtype {dtype}"):
        warpfold.sum(FakeDeviceArray(typestr=typestr))


def test_big_endian_data_is_refused():
    with pytest.raises(TypeError, match="big-endian"):
        warpfold.sum(FakeDeviceArray(typestr=">f4"))


def test_strided_layouts_are_value_errors():
    with pytest.raises(ValueError, match="not contiguous"):
        warpfold.sum(FakeDeviceArray(shape=(500,), strides=(8,)))  # every other float
    with pytest.raises(ValueError, match="not contiguous"):
        warpfold.sum(FakeDeviceArray(shape=(10, 10), strides=(80, 4)))  # rows of a wider matrix
    with pytest.raises(ValueError, match="whole elements"):
        warpfold.sum(FakeDeviceArray(shape=(10,), strides=(6,)))


def test_argmin_needs_c_order():
    transposed = FakeDeviceArray(shape=(4, 3), strides=(4, 16))
    with pytest.raises(ValueError, match="C-contiguous"):
        warpfold.argmin(transposed)


def test_layouts_of_one_dense_block():
    assert _layout.view_of(1000, (4, 3), (3, 1), 4, "float32", 0, "x").ordered
    transposed = _layout.view_of(1000, (4, 3), (1, 4), 4, "float32", 0, "x")
    assert (transposed.data, transposed.n, transposed.ordered) == (1000, 12, False)
    reversed_ = _layout.view_of(1000, (5,), (-1,), 4, "float32", 0, "x")
    assert (reversed_.data, reversed_.n) == (1000 - 4 * 4, 5)
    assert _layout.view_of(1000, (3, 1, 2), (2, 99, 1), 8, "float64", 0, "x").ordered  # size-1 dims
    assert _layout.view_of(1000, (0, 7), (1, 1), 8, "float64", 0, "x").n == 0
    assert _layout.dense_block_start((4, 4), (8, 1)) is None


@pytest.mark.parametrize("fn", [warpfold.min, warpfold.max, warpfold.argmin, warpfold.argmax])
def test_empty_searches_are_value_errors(fn):
    with pytest.raises(ValueError, match="empty"):
        fn(FakeDeviceArray(shape=(0,)))
    with pytest.raises(ValueError, match="empty"):
        fn(FakeDeviceArrayProperty(shape=(3, 0)))


def test_unknown_and_misapplied_ops():
    with pytest.raises(ValueError, match="unknown op 'median'"):
        warpfold.reduce(FakeDeviceArray(), "median")
    with pytest.raises(TypeError, match="op must be a string"):
        warpfold.reduce(FakeDeviceArray(), 3)
    with pytest.raises(TypeError, match="xor needs integer or bool input"):
        warpfold.reduce(FakeDeviceArray(), "bitwise_xor")


@pytest.mark.parametrize("stream", ["default", -1, True, 1.5, object()])
def test_bad_streams_are_type_errors(stream):
    with pytest.raises(TypeError, match="stream= takes a CUDA stream"):
        warpfold.sum(FakeDeviceArray(), stream=stream)


def test_out_is_checked():
    x = FakeDeviceArray(typestr="<f4")
    with pytest.raises(TypeError, match="out has dtype float64, the result is float32"):
        warpfold.sum(x, out=FakeDeviceArray(shape=(), typestr="<f8"))
    with pytest.raises(ValueError, match="exactly one element"):
        warpfold.sum(x, out=FakeDeviceArray(shape=(2,)))
    with pytest.raises(ValueError, match="read-only"):
        warpfold.max(x, out=FakeDeviceArray(shape=(1,), readonly=True))
    with pytest.raises(TypeError):
        warpfold.argmin(x, out=FakeDeviceArray(shape=()))


def test_masked_arrays_are_refused():
    with pytest.raises(ValueError, match="mask"):
        warpfold.sum(FakeDeviceArray(mask=(UNBACKED, False)))


@pytest.mark.skipif(not NO_DEVICE, reason="a CUDA device is present")
def test_no_device_is_a_runtime_error():
    for x in (FakeDeviceArray(), FakeDeviceArrayProperty()):
        with pytest.raises(RuntimeError, match="no usable CUDA device"):
            warpfold.sum(x)


def test_install_without_nvcc_stops_with_one_line(monkeypatch, tmp_path):
    pytest.importorskip("scikit_build_core")
    path = pathlib.Path(__file__).resolve().parents[1] / "build_backend" / "warpfold_build.py"
    spec = importlib.util.spec_from_file_location("warpfold_build", path)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    monkeypatch.delenv("CUDACXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(hook, "_TOOLKIT_BINS", (str(tmp_path),))
    with pytest.raises(SystemExit) as stop:
        hook.build_wheel(str(tmp_path))
    message = str(stop.value)
    assert "nvcc not found" in message and "CUDA toolkit" in message and "\n" not in message
    monkeypatch.setenv("CUDACXX", os.path.join(str(tmp_path), "missing-nvcc"))
    with pytest.raises(SystemExit, match="nvcc not found"):
        hook.build_editable(str(tmp_path))
