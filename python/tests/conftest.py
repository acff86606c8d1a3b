"""Fixtures: the frameworks a GPU test runs on (each skipped where it or a device is missing)."""

import os

# JAX takes most of the GPU's memory at start-up unless told not to; the other tests need it.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import pytest  # noqa: E402


@pytest.fixture(params=["torch", "cupy"])
def backend(request):
    """Each framework with a CUDA device, as a frameworks.Backend."""
    return _frameworks().backend(request.param)


@pytest.fixture
def torch_cuda():
    return _frameworks().backend("torch").module


@pytest.fixture
def cupy_cuda():
    return _frameworks().backend("cupy").module


def _frameworks():
    pytest.importorskip("numpy")  # the GPU tests compare with NumPy
    import frameworks

    return frameworks
