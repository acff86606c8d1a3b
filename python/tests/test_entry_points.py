"""warpfold.sum and its kin as functions of the extension (python/src/fast_calls.cpp, entry_point):
what they hold and what holds them. The tests that take the package out of sys.modules run in an
interpreter of their own."""

import copy
import os
import pathlib
import pickle
import subprocess
import sys

import pytest

import warpfold
from warpfold import _warpfold as ext


def run_python(script: str) -> subprocess.CompletedProcess:
    """`script` run by a fresh interpreter that imports this warpfold, under CPython's debug
    allocator, which overwrites freed memory so that reading a freed object fails."""
    package_dir = str(pathlib.Path(warpfold.__file__).parent.parent)
    path = os.pathsep.join(p for p in (package_dir, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONMALLOC="debug", PYTHONPATH=path)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_an_entry_point_outlives_the_package_module():
    """nanobind reads a function's scope each time its __qualname__ is asked for, and holds no
    reference to it: the scope is not the package, so warpfold.sum still names itself once the
    package module is gone, and nothing is reported leaked at exit."""
    done = run_python("""
import gc, sys, weakref
import warpfold
f = warpfold.sum
package = weakref.ref(warpfold)
del sys.modules["warpfold"], warpfold
gc.collect()
assert package() is None
print(f.__qualname__, f.__name__, f.__module__)
""")
    assert done.stdout == "sum sum warpfold\n"
    assert "leaked" not in done.stderr


def test_entry_points_live_as_long_as_what_holds_them():
    """Only the modules and callers that hold warpfold.sum and its kin keep them: with every
    warpfold module out of sys.modules and collected, none is left, so none outlives the
    interpreter's teardown (which clears the modules still in sys.modules only)."""
    done = run_python("""
import gc, sys
import warpfold
kind = type(warpfold.sum)
def entry_points():
    return sorted(f.__name__ for f in gc.get_objects() if type(f) is kind and f.__module__ == "warpfold")
print(entry_points())
for name in [n for n in sys.modules if n == "warpfold" or n.startswith("warpfold.")]:
    del sys.modules[name]
del warpfold
gc.collect()
print(entry_points())
""")
    assert done.stdout.splitlines() == ["['argmax', 'argmin', 'max', 'min', 'prod', 'reproducible_sum', 'sum']", "[]"]


def test_making_an_entry_point_leaves_the_module_as_it_was():
    """entry_point names the function after the module and sets nothing on it: binding the name is
    the caller's."""
    made = ext.entry_point("sum", "A sum.", warpfold)
    assert made is not warpfold.sum and type(made) is type(warpfold.sum)
    assert (made.__name__, made.__qualname__, made.__module__) == ("sum", "sum", "warpfold")
    assert made.__doc__ == warpfold.sum.__doc__.split("\n")[0] + "\n\nA sum."
    assert ext.entry_point("argmax", "", ext).__module__ == "warpfold._warpfold"


@pytest.mark.parametrize("copy_of", [pickle.dumps, copy.copy, copy.deepcopy])
def test_entry_points_cannot_be_pickled_or_copied(copy_of):
    """As every nanobind function: warpfold registers no reducer for nanobind's function type,
    which every nanobind extension in the process shares (docs/python.md)."""
    with pytest.raises(TypeError, match="pickle"):
        copy_of(warpfold.sum)


def test_reloading_api_makes_new_entry_points():
    """importlib.reload(warpfold._api) runs _api again: its functions are new ones, named and
    documented as before, and the package keeps those it imported; both reduce alike."""
    done = run_python("""
import importlib
import warpfold
from warpfold import _api
before = warpfold.sum
importlib.reload(_api)
assert _api.sum is not before and warpfold.sum is before
for f in (before, _api.sum):
    print(f.__qualname__, f.__module__, f.__doc__ == before.__doc__)
    try:
        f([1.0])
    except TypeError as error:
        print(error)
""")
    lines = done.stdout.splitlines()
    assert lines[:2] == lines[2:] and lines[0] == "sum warpfold True" and lines[1].endswith("not list")
