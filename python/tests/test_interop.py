"""Arrays of other producers: a bare __cuda_array_interface__, a bare DLPack object, JAX.
Needs a CUDA device (skipped without); the JAX test runs where JAX imports and sees a GPU."""

import pytest

np = pytest.importorskip("numpy")  # the references; without it these tests skip

from reference import quarter_values  # noqa: E402

import warpfold  # noqa: E402


class CudaArrayInterfaceOnly:
    """Nothing but __cuda_array_interface__, over another array's memory."""

    def __init__(self, array):
        self.base = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


class DLPackOnly:
    """Nothing but the DLPack protocol, delegated to another array."""

    def __init__(self, array):
        self.base = array

    def __dlpack__(self, stream=None):
        return self.base.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.base.__dlpack_device__()


def test_cuda_array_interface_object(cupy_cuda):
    cupy = cupy_cuda
    values = quarter_values(100_003, np.random.default_rng())
    buffer = cupy.asarray(values.astype(np.float32))
    x = CudaArrayInterfaceOnly(buffer[3:])
    r = warpfold.sum(x)
    assert isinstance(r, cupy.ndarray) and r.dtype == np.float32 and r.shape == ()
    assert r.item() == float(values[3:].sum())
    assert warpfold.argmin(x).item() == int(np.argmin(values[3:].astype(np.float32)))
    counts = CudaArrayInterfaceOnly(cupy.asarray(np.arange(1, 1001, dtype=np.uint8)))
    assert warpfold.sum(counts).dtype == np.uint64  # NumPy's rules for producers other than PyTorch


def test_dlpack_object(torch_cuda):
    torch = torch_cuda
    values = quarter_values(65_537, np.random.default_rng())
    tensor = torch.from_numpy(values.astype(np.float32)).cuda()
    r = warpfold.sum(DLPackOnly(tensor))
    assert float(r.item()) == float(values.sum())
    assert int(warpfold.argmax(DLPackOnly(tensor)).item()) == int(np.argmax(values.astype(np.float32)))


def test_jax_arrays():
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        pytest.skip("JAX sees no GPU")
    if warpfold._frameworks.fallback() is None:
        pytest.skip("neither PyTorch nor CuPy is installed to allocate results")
    values = quarter_values(10_007, np.random.default_rng())
    x = jax.device_put(values.astype(np.float32), gpus[0])
    r = warpfold.sum(x)
    assert isinstance(r, jax.Array)
    assert float(r) == float(values.sum())
    assert int(warpfold.argmax(x)) == int(np.argmax(values.astype(np.float32)))
    with pytest.raises(TypeError, match="cpu"):
        warpfold.sum(jax.device_put(values, jax.devices("cpu")[0]))


def test_dims_and_segments_of_other_producers(cupy_cuda):
    """A strided __cuda_array_interface__ array is reduced along dims in place; offsets may come
    from any producer too."""
    cupy = cupy_cuda
    values = quarter_values(64 * 33, np.random.default_rng()).reshape(64, 33).astype(np.float32)
    buffer = cupy.asarray(values)
    r = warpfold.sum(CudaArrayInterfaceOnly(buffer.T), dim=1)
    assert isinstance(r, cupy.ndarray) and np.array_equal(cupy.asnumpy(r), values.sum(axis=0))
    offsets = CudaArrayInterfaceOnly(cupy.asarray(np.array([0, 5, 64 * 33], dtype=np.int32)))
    sums = cupy.asnumpy(warpfold.segmented_sum(CudaArrayInterfaceOnly(buffer), offsets))
    assert list(sums) == [values.ravel()[:5].sum(), values.ravel()[5:].sum()]
