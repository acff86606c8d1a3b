"""The PEP 517 backend of `pip install .`: scikit-build-core, after one check that the CUDA
compiler is there, so that a machine without it stops with one line instead of CMake's log."""

import os
import shutil

from scikit_build_core import build as _backend
from scikit_build_core.build import *  # noqa: F401,F403 (every hook scikit-build-core defines)

_TOOLKIT_BINS = ("/usr/local/cuda/bin", "/opt/cuda/bin", "/usr/lib/cuda/bin")


def _find_nvcc():
    """nvcc from CUDACXX, PATH or the toolkit's usual folders (set as CUDACXX for CMake)."""
    named = os.environ.get("CUDACXX")
    if named:
        return named if shutil.which(named) else None
    found = shutil.which("nvcc")
    if found:
        return found
    for folder in _TOOLKIT_BINS:
        candidate = os.path.join(folder, "nvcc")
        if os.access(candidate, os.X_OK):
            os.environ["CUDACXX"] = candidate
            return candidate
    return None


def _require_nvcc():
    if _find_nvcc() is None:
        raise SystemExit("warpfold: nvcc not found: building warpfold needs the CUDA toolkit (13.0 or newer); "
                         "install it and put its bin/ on PATH, or set CUDACXX to nvcc")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _require_nvcc()
    return _backend.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _require_nvcc()
    return _backend.build_editable(wheel_directory, config_settings, metadata_directory)
