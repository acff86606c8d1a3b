"""The fast path (warpfold._fast) against the general one, without a GPU: every call is made both
ways on stand-ins for PyTorch and CuPy (fakes.py), with the extension's launches recorded; the
allocations, launches, results and errors must be the same. CI runs these; the GPU tests
(test_differential, test_dims*, test_streams) check the same calls' numbers on a device."""

import os
import sys

import pytest

np = pytest.importorskip("numpy")

import fakes  # noqa: E402
import warpfold  # noqa: E402
from warpfold import _axis, _core, _fast, _frameworks, _inputs  # noqa: E402
from warpfold import _warpfold as ext  # noqa: E402


class Setup:
    """A fake framework wired into warpfold both ways, the extension's launches recorded."""

    def __init__(self, name: str, monkeypatch):
        self.machine = fakes.Machine()
        self.is_torch = name == "torch"
        if self.is_torch:
            self.module = fakes.fake_torch(self.machine)
            fw = _frameworks.Torch(self.module)
            self.cls, self.calls = self.module.Tensor, _fast.TorchCalls(fw)
        else:
            self.module = fakes.fake_cupy(self.machine)
            fw = _frameworks.CuPy(self.module)
            self.cls, self.calls = self.module.ndarray, _fast.CuPyCalls(fw)
        monkeypatch.setitem(_inputs._READERS, self.cls, _inputs._framework_reader(fw))
        self.fw = fw
        events = lambda what: lambda *args: self.machine.events.append((what,) + args)  # noqa: E731
        self.capturing = False  # the stream capture a test puts the extension in

        def run(*args):  # the extension's: a kept block meets a capture with False, nothing queued
            kept = len(args) > 8 and args[8]
            if kept and self.capturing:
                return False
            self.machine.events.append(("run",) + args)
            return True

        def axis_run_kept(*args):  # as run with a kept block
            if self.capturing:
                return False
            self.machine.events.append(("axis_run_kept",) + args)
            return True

        monkeypatch.setattr(ext, "run", run)
        monkeypatch.setattr(ext, "capturing", lambda stream: self.capturing)
        monkeypatch.setattr(ext, "axis_run", events("axis_run"))
        monkeypatch.setattr(ext, "axis_run_kept", axis_run_kept)
        monkeypatch.setattr(ext, "temp_bytes", lambda index, device: 512 + 8 * index + device)
        monkeypatch.setattr(ext, "axis_temp_bytes", lambda index, device, extents: 1024 + sum(extents) % 97)
        self.reads = 0

        def counted(read):
            def read_counted(*args, **kwargs):
                self.reads += 1
                return read(*args, **kwargs)
            return read_counted

        for module in (_core, _axis):  # the general path reads its input through read()
            monkeypatch.setattr(module, "read", counted(module.read))
        self.fast = lambda on: monkeypatch.setitem(_fast.FAST, self.cls, self.calls if on else False)
        if self.is_torch:  # the results' templates, kept before any call (their own tests clear them)
            for name in fakes.ITEMSIZE:
                for device in (0, 1):
                    fw.template(getattr(self.module, name), device)

    def array(self, shape, dtype, device=0, strides=None, offset=0):
        """An array of `shape` (element strides), `offset` elements into its allocation."""
        if self.is_torch:
            base = self.module.Tensor((count_for(shape, strides) + offset,), getattr(self.module, dtype), device)
            return self.module.Tensor(shape, getattr(self.module, dtype), device, strides,
                                      base.data_ptr() + offset * base.element_size())
        cupy = self.module
        base = cupy.ndarray((count_for(shape, strides) + offset,), dtype)
        itemsize = base.itemsize
        byte_strides = None if strides is None else tuple(s * itemsize for s in strides)
        memptr = cupy.cuda.MemoryPointer(base.data.ptr + offset * itemsize, device)
        return cupy.ndarray(shape, dtype, memptr, byte_strides)

    def outcome(self, call, fast: bool, warm: bool = False):
        """(the events, the result or the error) of call() made one way; `warm`: with the kept
        blocks of the calls before."""
        self.fast(fast)
        self.machine.reset()
        if self.is_torch and not warm:  # each way allocates its own kept block, at the same place
            self.fw.kept.clear()
        self.reads = 0
        try:
            r = call()
            got = ("result", tuple(r.shape), str(r.dtype), r.data_ptr() if hasattr(r, "data_ptr") else r.data.ptr)
        except (TypeError, ValueError, IndexError) as error:
            got = (type(error).__name__, str(error))
        return self.machine.events, got


def count_for(shape, strides) -> int:
    """Elements an array of `shape` and element `strides` spans (C order where None)."""
    if strides is None:
        return fakes.count(shape)
    return 1 + sum((size - 1) * abs(stride) for size, stride in zip(shape, strides)) if all(shape) else 0


@pytest.fixture(params=["torch", "cupy"])
def setup(request, monkeypatch):
    return Setup(request.param, monkeypatch)


def same_both_ways(setup, call, served: bool):
    """call() gives the same events and result (or error) by either path; the fast path took it
    without reading the input the general way where `served`."""
    general_events, general = setup.outcome(call, fast=False)
    fast_events, fast = setup.outcome(call, fast=True)
    assert fast == general
    assert fast_events == general_events
    assert (setup.reads == 0) == served, "the fast path served it" if not served else "the general path read it"
    assert setup.outcome(call, fast=True) == (fast_events, fast)  # and again, from the kept plans
    if setup.is_torch:  # with its kept block: _ext.dispatch runs full() and along() in C++ as they run
        in_cpp = setup.outcome(call, fast=True, warm=True)
        states = setup.calls.served_full, setup.calls.served_along
        setup.calls.served_full = setup.calls.served_along = None
        in_python = setup.outcome(call, fast=True, warm=True)
        setup.calls.served_full, setup.calls.served_along = states
        assert in_cpp == in_python
    return general_events, general


FULL_CASES = [  # (op, shape, dtype, dtype=, served)
    ("sum", (1024,), "float32", None, True),
    ("sum", (1000,), "int32", None, True),  # torch: int64, cupy: int64
    ("sum", (17, 3), "uint8", None, True),  # cupy: uint64
    ("sum", (1024,), "float32", "float64", True),
    ("sum", (1024,), "float16", None, True),
    ("sum", (1024,), "bool", None, True),
    ("prod", (5, 7), "float64", None, True),
    ("min", (333,), "int64", None, True),
    ("max", (), "float32", None, True),
    ("argmax", (4, 9), "float32", None, True),
    ("argmin", (100,), "int32", None, True),
    ("sum", (0,), "float32", None, True),
    ("min", (0, 3), "float32", None, False),  # ValueError, from the general path
    ("argmin", (0,), "int32", None, False),
    ("sum", (8,), "complex64", None, False),  # TypeError: unsupported dtype
    ("sum", (8,), "float32", "complex64", False),
    ("sum", (8,), "float32", ["float64"], False),  # an unhashable dtype=
    ("prod", (8,), "int32", "float16", False),  # no such entry
    ("reproducible_sum", (1000,), "float32", None, True),
    ("reproducible_sum", (77,), "float16", "float32", True),
    ("reproducible_sum", (8,), "int32", None, False),  # TypeError: floats only
]


@pytest.mark.parametrize("op, shape, dtype, requested, served", FULL_CASES)
def test_full_reduces_match(setup, op, shape, dtype, requested, served):
    x = setup.array(shape, dtype)
    setup.machine.mark()
    kwargs = {} if requested is None else {"dtype": requested}
    events, _ = same_both_ways(setup, lambda: warpfold.reduce(x, op, **kwargs) if op in ("sum", "prod", "min", "max")
                               else getattr(warpfold, op)(x, **kwargs), served)
    if served:
        assert [e[0] for e in events if e[0] == "run"] == ["run"]


@pytest.mark.parametrize("along", [False, True])
def test_torch_temp_storage_is_kept_per_stream(monkeypatch, along):
    """Full reduces and single passes along a dim on one stream share one kept block of temp
    storage: allocated at the first call, replaced (the old one freed) where an entry asks more
    than it holds, and never used while the stream captures a graph, whose calls take blocks of
    their own; both paths alike."""
    setup = Setup("torch", monkeypatch)
    x = setup.array((50, 20) if along else (1000,), "float32")
    setup.machine.mark()
    stream = setup.module._C._cuda_getCurrentRawStream(0)
    call = (lambda: warpfold.sum(x, dim=0)) if along else (lambda: warpfold.sum(x))  # noqa: E731
    # A launch with the kept block: axis_run_kept, or run with its kept flag (temp storage: field 6 of both).
    kept_launch = (lambda e: e[0] == "axis_run_kept") if along else (lambda e: e[0] == "run" and len(e) > 9 and e[9])
    own_launch = "axis_run" if along else "run"
    for fast in (True, False):
        setup.fast(fast)
        setup.machine.reset()
        setup.fw.kept.clear()
        for _ in range(3):
            call()
        runs = [e for e in setup.machine.events if e[0] in ("run", "axis_run", "axis_run_kept")]
        allocs = [e for e in setup.machine.events if e[0] == "raw_alloc"]
        assert len(runs) == 3 and len(allocs) == 1
        assert {r[6] for r in runs} == {allocs[0][2]} and all(kept_launch(r) for r in runs)
        assert not [e for e in setup.machine.events if e[0] == "raw_delete"]
        setup.fw.kept[(0, stream)] = (0x77700, 1)  # a block too small for the entry: replaced
        call()
        assert ("raw_delete", 0x77700) in setup.machine.events
        assert len([e for e in setup.machine.events if e[0] == "raw_alloc"]) == 2
        setup.capturing = True  # in a capture: a block of the call's own, freed after it
        setup.machine.events.clear()
        call()
        kinds = [e[0] for e in setup.machine.events if e[0] in ("raw_alloc", "run", "axis_run", "raw_delete")]
        assert kinds == ["raw_alloc", own_launch, "raw_delete"]
        assert not [e for e in setup.machine.events if kept_launch(e)]
        setup.capturing = False


@pytest.mark.parametrize("capturing", [False, True])
def test_torch_results_are_made_alike_from_the_first_call(monkeypatch, capturing):
    """With no template kept yet, the first call of each kind makes the same allocations by either
    path: the template, then the result like it; or, where the first call meets a graph capture
    (whose pool owns the template, so it is not kept), the template as the 0-d result and, for
    any other shape, the result by torch.empty."""
    setup = Setup("torch", monkeypatch)
    x, row = setup.array((50, 20), "float32"), setup.array((1, 64), "float32")
    setup.machine.mark()
    calls = [(lambda: warpfold.sum(x, dim=0), (20,)), (lambda: warpfold.sum(x, dim=-1, keepdim=True), (50, 1)),
             (lambda: warpfold.sum(x), ()), (lambda: warpfold.argmax(x), ()),
             (lambda: warpfold.sum(row, dim=1, keepdim=True), (1, 1))]
    for call, shape in calls:
        outcomes = []
        for fast in (False, True):
            setup.fast(fast)
            setup.machine.reset()
            setup.fw.kept.clear()
            setup.fw.templates.clear()
            setup.calls.along_calls.clear()
            setup.capturing = capturing
            result = call()
            outcomes.append((setup.machine.events[:], tuple(result.shape), result.data_ptr()))
        assert outcomes[0] == outcomes[1] and outcomes[0][1] == shape
        made = [e for e in outcomes[0][0] if e[0] == "torch.empty"]
        assert made[0][3] == () and bool(setup.fw.templates) != capturing
    setup.capturing = False


def test_torch_results_along_dims_of_one_element_are_made_like_a_view_of_the_template(monkeypatch):
    """A result along dims whose dims are all 1 is made like a view of the template, with
    torch.empty's strides of 1 (the expanded template's are 0); a 0-d one is made like the
    template itself; each kept with the call. One with a dim of 0 has no template. The general
    path's results are made from the same views (Torch.template_view)."""
    setup = Setup("torch", monkeypatch)
    assert _frameworks.Torch.expands_to((1, 2)) and _frameworks.Torch.expands_to((3,))
    assert not any(_frameworks.Torch.expands_to(s) for s in [(), (1,), (1, 1), (0,), (0, 1)])
    x = setup.array((1, 1, 64), "float32")
    setup.machine.mark()
    for fast in (False, True, True):
        setup.fast(fast)
        r = warpfold.sum(x, dim=2)
        assert r.shape == (1, 1) and r.stride() == (1, 1)
    template = setup.fw.templates[(0, setup.module.float32)]
    view = _frameworks.Torch.template_view
    assert view(template, ()) is template and view(template, (1, 1)).stride() == (1, 1)
    assert view(template, (2, 1)).stride() == (0, 0) and view(template, (0, 1)) is None
    flat = setup.array((64,), "float32")
    warpfold.sum(flat, dim=0)
    kept = [call for key, call in setup.calls.along_calls.items() if key[2] == (64,)]
    assert len(kept) == 1 and kept[0].like is setup.fw.templates[(0, setup.module.float32)]
    ones = [call for key, call in setup.calls.along_calls.items() if key[2] == (1, 1, 64)]
    assert len(ones) == 1 and ones[0].like.shape == (1, 1) and ones[0].like.stride() == (1, 1)
    empty = setup.array((0, 64), "float32")
    for _ in range(2):
        assert warpfold.sum(empty, dim=1).stride() == (1,)
    assert [call.like for key, call in setup.calls.along_calls.items() if key[2] == (0, 64)] == [None]


def test_torch_scalars_are_made_like_a_kept_template(monkeypatch):
    """A 0-d PyTorch result is torch.empty_like of a template kept per (device, dtype): made at
    the first call, not kept where that call meets a graph capture (whose pool owns the memory),
    and never handed out itself; both paths alike."""
    setup = Setup("torch", monkeypatch)
    x = setup.array((100,), "float32")
    setup.machine.mark()
    for fast in (True, False):
        setup.fast(fast)
        setup.machine.reset()
        setup.fw.kept.clear()
        setup.fw.templates.clear()
        setup.capturing = True
        captured = warpfold.sum(x)
        assert not setup.fw.templates
        assert [e[2] for e in setup.machine.events if e[0] == "torch.empty"] == [captured.data_ptr()]
        setup.capturing = False
        first, second = warpfold.sum(x), warpfold.sum(x)
        template = setup.fw.templates[(0, setup.module.float32)]
        assert list(setup.fw.templates) == [(0, setup.module.float32)]
        assert len({template.data_ptr(), first.data_ptr(), second.data_ptr(), captured.data_ptr()}) == 4
        assert template.shape == first.shape == second.shape == ()


def test_torch_keeps_no_template_of_a_tracing_stand_in(monkeypatch):
    """Where torch.empty gives a subclass of Tensor (a tracing mode's stand-in), that tensor is
    the result, and no template is kept for later calls."""
    setup = Setup("torch", monkeypatch)
    Tensor = setup.module.Tensor

    class StandIn(Tensor):
        pass

    empty = setup.module.empty

    def empty_stand_in(shape, dtype, device):
        t = empty(shape, dtype, device)
        t.__class__ = StandIn
        return t

    monkeypatch.setattr(setup.module, "empty", empty_stand_in)
    setup.fw.templates.clear()
    result = setup.fw.scalar(setup.module.float32, 0)
    assert type(result) is StandIn and not setup.fw.templates


@pytest.mark.parametrize("shape, strides, device, offset, served", [
    ((16, 8), (1, 16), 0, 0, False),  # a transpose: one dense block, not in C order
    ((16, 8), (16, 2), 0, 0, False),  # gaps: ValueError
    ((64,), None, -1, 0, False),  # a host tensor: TypeError
    ((64,), None, 1, 0, "torch"),  # not on the current device: PyTorch's fast path runs it on x's
    ((64,), None, 0, 3, True),  # a slice of a larger allocation
])
def test_full_reduce_layouts_and_devices(setup, shape, strides, device, offset, served):
    if device < 0 and not setup.is_torch:
        pytest.skip("a CuPy array is on a device")
    x = setup.array(shape, "float32", device, strides, offset)
    setup.machine.mark()
    same_both_ways(setup, lambda: warpfold.sum(x), setup.is_torch if served == "torch" else served)


AXIS_CASES = [  # (op, shape, strides, dim, keepdim, served)
    ("sum", (32, 32), None, 1, False, True),
    ("sum", (32, 32), None, 0, False, True),
    ("sum", (32, 32), None, -1, True, True),
    ("max", (4, 8, 16), None, 1, False, True),
    ("argmin", (32, 32), None, 1, False, True),
    ("argmax", (6, 40), None, 0, True, True),
    ("sum", (32, 16), (1, 32), 1, False, True),  # a transpose, read in place
    ("sum", (8, 4, 6), (48, 1, 8), 2, False, True),
    ("sum", (8, 6), (6, -1), 1, False, True),  # reversed rows (CuPy: x[:, ::-1])
    ("sum", (0, 4), None, 0, False, True),  # no element to reduce: identities
    ("sum", (4, 0), None, 0, False, True),  # no output: no launch
    ("sum", (1, 64), None, 1, False, True),  # every dim of size above 1: the full reduce
    ("max", (1, 64), None, 1, True, True),
    ("sum", (64, 1), None, 0, False, True),
    ("argmin", (64,), None, 0, False, False),  # the full reduce's flat index: the general path
    ("sum", (4, 8, 16), None, (0, 2), False, False),  # dim= as a tuple: passes
    ("sum", (4, 8, 16), (1, 512, 32), 1, False, True),  # outer and inner strides of a permuted view
    ("sum", (3, 4, 5, 2), (40, 10, 1, 5), 0, False, False),  # three runs of kept dims: a copy first
    ("min", (0, 4), None, 0, False, False),  # ValueError
    ("sum", (4, 4), None, 2, False, False),  # IndexError
    ("sum", (4, 4), None, True, False, False),  # TypeError: dim= is not an int
    ("prod", (4, 4), None, 1, False, False),  # with int8 input below: no entry along dims
]


@pytest.mark.parametrize("op, shape, strides, dim, keepdim, served", AXIS_CASES)
def test_reductions_along_dims_match(setup, op, shape, strides, dim, keepdim, served):
    dtype = "int8" if op == "prod" else "int32" if op == "argmin" else "float32"
    if strides is not None and not setup.is_torch and not served:
        pytest.skip("the fake CuPy makes no copies")
    x = setup.array(shape, dtype, strides=strides, offset=5)
    setup.machine.mark()
    if op.startswith("arg"):
        call = lambda: getattr(warpfold, op)(x, dim=dim, keepdim=keepdim)  # noqa: E731
    else:
        call = lambda: warpfold.reduce(x, op, dim=dim, keepdim=keepdim)  # noqa: E731
    events, _ = same_both_ways(setup, call, served)
    if served and 0 not in shape:
        launches = [e[0] for e in events if e[0] in ("run", "axis_run", "axis_run_kept")]
        whole = all(size == 1 or d == dim % len(shape) for d, size in enumerate(shape))
        assert (launches == ["run"]) if whole else (launches in (["axis_run"], ["axis_run_kept"]))


@pytest.mark.parametrize("op", ["sum", "argmax"])
def test_torch_whole_reduces_are_served_without_a_python_frame(monkeypatch, op):
    """Once a call's template exists, _ext.dispatch runs a PyTorch whole reduce itself: the launch
    comes with no frame of _fast on the stack (same_both_ways compares its events and result with
    full()'s). On a stream that captures a graph the kept block is refused and run_full runs it."""
    setup = Setup("torch", monkeypatch)
    x = setup.array((1000,), "float32")
    callers = spy_on_callers(setup, monkeypatch, "run")
    call = getattr(warpfold, op)
    first, second = call(x), call(x)
    assert second.data_ptr() != first.data_ptr() and second.shape == first.shape == ()
    assert [_fast.__file__ in files for files in callers] == [True, False]
    assert not any(in_package(files) for files in callers[1:])  # nor any frame of warpfold's
    setup.capturing = True
    call(x)
    assert _core.__file__ in callers[-1] and _fast.__file__ not in callers[-1]  # run_full, from C++
    last = [e for e in setup.machine.events if e[0] == "run"][-1]
    assert not (len(last) > 9 and last[9])  # not with the kept block


@pytest.mark.parametrize("shape, dim, launch", [((64, 96), 0, "axis_run_kept"), ((96, 64), 1, "axis_run_kept"),
                                                ((500,), 0, "run"), ((1, 500), 1, "run"),
                                                ((1 << 21, 64), 0, "axis_run_kept")])
def test_torch_reduces_along_a_dim_are_served_without_a_python_frame(monkeypatch, shape, dim, launch):
    """As the whole reduces: once the call's template exists, a single pass along a dim (or the full
    reduce that runs it) launches from C++. Under a capture the kept block is refused and the pass
    runs with temp storage of its own (run_along_own), the full reduce with run_full."""
    setup = Setup("torch", monkeypatch)
    x = setup.array(shape, "float32")
    callers = spy_on_callers(setup, monkeypatch, launch)
    first, second = warpfold.sum(x, dim=dim), warpfold.sum(x, dim=dim)
    assert second.data_ptr() != first.data_ptr() and second.shape == first.shape
    assert [_fast.__file__ in files for files in callers] == [True, False]
    assert not any(in_package(files) for files in callers[1:])
    setup.capturing = True
    before = len(setup.machine.events)
    warpfold.sum(x, dim=dim)
    launches = [e for e in setup.machine.events[before:] if e[0] in ("run", "axis_run", "axis_run_kept")]
    assert len(launches) == 1 and launches[0][0] == ("run" if launch == "run" else "axis_run")
    assert not (len(launches[0]) > 9 and launches[0][9])  # not with the kept block


def spy_on_callers(setup, monkeypatch, launch: str) -> list:
    """The fast path on, and the source files on the stack at each call of _ext.`launch`, listed."""
    setup.machine.mark()
    setup.fast(True)
    recorded = getattr(ext, launch)
    callers: list = []

    def spy(*args):
        callers.append({frame.f_code.co_filename for frame in _frames()})
        return recorded(*args)

    monkeypatch.setattr(ext, launch, spy)
    return callers


def in_package(files: set) -> bool:
    """Whether any of `files` is a source file of the warpfold package."""
    package = os.path.dirname(warpfold.__file__) + os.sep
    return any(f.startswith(package) for f in files)


def _frames():
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back


def test_the_fast_path_is_only_for_the_frameworks_own_types():
    class NotATensor:
        pass

    assert _fast.calls_for(NotATensor) is False
    assert _fast.FAST.pop(NotATensor) is False


def test_out_and_stream_take_the_general_path(setup):
    x = setup.array((64,), "float32")
    out = setup.array((), "float32")
    setup.machine.mark()
    same_both_ways(setup, lambda: warpfold.sum(x, out=out), served=False)
    same_both_ways(setup, lambda: warpfold.sum(x, stream=0), served=False)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("bad", [True, False, (True,), [0, False]])
def test_a_bool_dim_is_refused_after_its_int_ran(setup, fast, bad):
    """dim=True equals 1 as a dictionary key: the call with dim=1 before it must not let it in."""
    x = setup.array((4, 6), "float32")
    setup.fast(fast)
    warpfold.sum(x, dim=1)
    warpfold.sum(x, dim=(0, 1))
    warpfold.sum(x, dim=0)
    with pytest.raises(TypeError, match="dim= takes an int or a tuple of ints"):
        warpfold.sum(x, dim=bad)


def test_torch_along_a_dim_off_the_current_device_takes_the_general_path(monkeypatch):
    """A call along a dim served on its own device (its template kept) is not served from C++ once
    another device is current: its temp storage would be a block of the current device."""
    setup = Setup("torch", monkeypatch)
    x = setup.array((64, 96), "float32", device=1)
    setup.fast(True)
    setup.machine.current_device = 1
    warpfold.sum(x, dim=0)
    warpfold.sum(x, dim=0)
    assert setup.reads == 0  # served
    setup.machine.current_device = 0
    warpfold.sum(x, dim=0)
    assert setup.reads == 1  # read by the general path, which allocates on x's device
