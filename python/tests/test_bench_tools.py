"""The benchmark's statistics, naming and summary, on made-up timings (no GPU needed)."""

import statistics
import sys
import types

import pytest

from warpfold import bench


def test_bootstrap_interval_brackets_the_median():
    values = [1.0 + 0.01 * ((7 * i) % 13) for i in range(30)]
    lo, hi = bench.bootstrap_median_interval(values)
    assert lo <= statistics.median(values) <= hi
    assert hi - lo < max(values) - min(values)
    assert bench.bootstrap_median_interval(values) == (lo, hi)  # seeded: the same interval every run
    assert bench.bootstrap_median_interval([2.0]) == (2.0, 2.0)


def test_bootstrap_interval_narrows_with_more_rounds():
    few = [1.0 + 0.1 * ((5 * i) % 7) for i in range(10)]
    many = few * 10
    assert (lambda a, b: b - a)(*bench.bootstrap_median_interval(many)) <= \
        (lambda a, b: b - a)(*bench.bootstrap_median_interval(few))


def test_summarize():
    s = bench.summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (s["median_us"], s["min_us"], s["max_us"]) == (3.0, 1.0, 5.0)


@pytest.mark.parametrize("name, tag", [("NVIDIA H100 80GB HBM3", "H100"), ("NVIDIA H200", "H200"),
                                       ("NVIDIA GeForce RTX 4090", "RTX-4090"), ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
                                       ("Some Device", "GPU")])
def test_gpu_tag(name, tag):
    assert bench.gpu_tag(name) == tag


def test_result_path_never_overwrites(tmp_path):
    first = bench.result_path(str(tmp_path), "H100", "2026-11-25")
    assert first.endswith("python-H100-2026-11-25.json")
    open(first, "w").close()
    assert bench.result_path(str(tmp_path), "H100", "2026-11-25").endswith("python-H100-2026-11-25-2.json")


def test_arguments():
    args = bench.parse_args([])
    assert args.sizes == bench.DEFAULT_LOG2_SIZES and 28 in args.sizes and args.rounds >= 2
    assert bench.parse_args(["--all-sizes"]).sizes == tuple(range(10, 31))
    assert bench.parse_args(["--sizes", "10,20-22", "--dtypes", "int32"]).sizes == (10, 20, 21, 22)
    with pytest.raises(SystemExit):
        bench.parse_args(["--sizes", "40"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--rounds", "1"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--host-bound-rounds", "1"])


def test_host_bound_rows_take_their_own_rounds():
    args = bench.parse_args(["--rounds", "20", "--host-bound-rounds", "250"])
    assert bench.rounds_for(bench.series_turn(1 << 12, 50 << 20), args) == 250  # fits in half the L2
    assert bench.rounds_for(bench.series_turn(1 << 30, 50 << 20), args) == 20  # timed in turns


def fake_result(torch_ratio_at_2e28: float):
    rows = []
    for log2_n, torch_ratio in ((10, 1.5), (28, torch_ratio_at_2e28)):
        rows.append({"dtype": "int32", "log2_n": log2_n, "library": "warpfold", "median_us": 10.0, "check": "ok"})
        rows.append({"dtype": "int32", "log2_n": log2_n, "library": "torch", "median_us": 10.0 * torch_ratio,
                     "ratio_vs_warpfold": torch_ratio, "ratio_ci95": [torch_ratio * 0.9, torch_ratio * 1.1],
                     "check": "ok"})
    return {"meta": {"device": "NVIDIA H100", "rounds": 30, "dtypes": ["int32"], "log2_sizes": [10, 28]},
            "rows": rows, "host_us_per_call_2e10": {"warpfold": 6.0, "torch": 9.0}, "skipped": {"cupy int32": "why"}}


def test_summary_names_the_target_and_every_loss():
    text = "\n".join(bench.summary_lines(fake_result(5.3)))
    assert "target int32 2^28: 5.30x torch.sum (>= 4: met)" in text
    assert "slower than torch.sum or cupy.sum at: none" in text
    assert "warpfold 6.00 us" in text and "cupy int32 left out: why" in text
    text = "\n".join(bench.summary_lines(fake_result(0.8)))
    assert "NOT met" in text and "int32 2^28 vs torch (0.80)" in text


def test_axis_shapes_are_the_cpp_bench_shapes():
    names = [s.name for s in bench.axis_bench_shapes(26)]
    assert names[:2] == ["2^24 x 4, dim=1", "2^24 x 4, dim=0"]
    for name in ("4 x 2^24, dim=0", "2^22 x 16, dim=1", "2^13 x 2^13, dim=0", "1 x 2^26, dim=1",
                 "2^13 x 2^13, x.T.sum(1)", "2^13 x 2^13, x[:, ::2].sum(1)"):
        assert name in names
    assert len(names) == 18 and all(s.rows * s.cols == 1 << 26 for s in bench.axis_bench_shapes(26))
    assert [s.name for s in bench.axis_bench_shapes(10)][-1] == "32 x 32, x[:, ::2].sum(1)"  # up to 1024: decimal
    args = bench.parse_args(["--axis", "--axis-elements", "20"])
    assert args.axis and args.axis_elements == 20
    with pytest.raises(SystemExit):
        bench.parse_args(["--axis-elements", "40"])


def test_axis_summary_names_every_loss():
    rows = []
    for shape, torch_ratio in (("2^24 x 4, dim=1", 1.2), ("4 x 2^24, dim=0", 0.9)):
        rows.append({"shape": shape, "library": "warpfold", "median_us": 100.0, "gbps": 2700.0, "check": "ok"})
        rows.append({"shape": shape, "library": "torch", "median_us": 100.0 * torch_ratio, "gbps": 2000.0,
                     "ratio_vs_warpfold": torch_ratio, "ratio_ci95": [torch_ratio - 0.1, torch_ratio + 0.1],
                     "check": "ok"})
    text = "\n".join(bench.axis_summary_lines(rows))
    assert "axis shapes slower than torch or cupy: 4 x 2^24, dim=0 vs torch (0.90)" in text
    assert "axis results beyond the bound: none" in text


# --- the timing: the C++ harness's orders and turns (src/harness/run_order.hpp, gpu_timer.hpp) ---------

def test_round_order_is_the_cpp_harness_order():
    # run_order.hpp's round_order(3, r) for r = 0..5, worked out by hand from its mixed radix
    assert [bench.round_order(3, r) for r in range(6)] == [[0, 1, 2], [1, 0, 2], [2, 0, 1], [0, 2, 1], [1, 2, 0],
                                                           [2, 1, 0]]
    orders = {tuple(bench.round_order(4, r)) for r in range(24)}
    assert len(orders) == 24 and all(sorted(o) == [0, 1, 2, 3] for o in orders)
    assert bench.round_order(4, 24) == bench.round_order(4, 0)


@pytest.mark.parametrize("count", [2, 3, 4])
def test_each_contender_follows_each_other_equally_often(count):
    rounds = 1
    for k in range(2, count + 1):
        rounds *= k
    follows = {}
    for r in range(rounds):
        order = bench.round_order(count, r)
        for before, after in zip(order, order[1:]):
            follows[(before, after)] = follows.get((before, after), 0) + 1
    assert len(follows) == count * (count - 1) and len(set(follows.values())) == 1
    firsts = [bench.round_order(count, r)[0] for r in range(rounds)]
    assert all(a != b for a, b in zip(firsts, firsts[1:]))  # no contender starts two rounds running


def test_series_turn_follows_the_l2():
    mib = 1 << 20
    assert bench.series_turn(25 * mib, 50 * mib) == 1
    assert bench.series_turn(25 * mib + 1, 50 * mib) == bench.SERIES_TURN == 10
    assert bench.series_turn(1024, 0) == bench.SERIES_TURN  # an unknown L2: turns


@pytest.mark.parametrize("rounds, warmup, turn", [(30, 3, 1), (30, 3, 10), (25, 0, 10), (7, 2, 3)])
def test_schedule_gives_every_contender_its_rounds(rounds, warmup, turn):
    steps = bench.timing_schedule(3, rounds, warmup, turn)
    for j in range(3):
        assert sum(1 for s in steps if s.contender == j and s.timed) == rounds
    assert all(not s.timed for s in steps[:3 * warmup])
    untimed_after_warmup = sum(1 for s in steps[3 * warmup:] if not s.timed)
    turns = -(-rounds // turn)
    assert untimed_after_warmup == (3 * turns if turn > 1 else 0)


def test_a_turn_begins_after_a_call_of_its_own():
    steps = bench.timing_schedule(3, 30, 3, 10)
    timed_after = [(steps[k - 1].contender, s.contender) for k, s in enumerate(steps) if s.timed]
    assert all(before == after for before, after in timed_after)  # never right after another library
    interleaved = bench.timing_schedule(3, 30, 3, 1)
    assert all(s.timed for s in interleaved[9:]) and [s.contender for s in interleaved[9:12]] == bench.round_order(3, 0)


class FakeClock:
    """torch.cuda's Event and synchronize over a made-up clock that each contender's call advances."""

    def __init__(self):
        self.now_ms = 0.0
        self.cuda = self
        clock = self

        class Event:
            def __init__(self, enable_timing=True):
                self.at = None

            def record(self):
                self.at = clock.now_ms

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return end.at - self.at

        self.Event = Event

    def synchronize(self):
        pass


def test_time_rounds_times_each_call_in_schedule_order():
    clock, calls = FakeClock(), []

    def contender(name, ms):
        def call():
            calls.append(name)
            clock.now_ms += ms
        return bench.Contender(name, call)

    found = [contender("warpfold", 0.1), contender("torch", 0.2), contender("cupy", 49.0)]
    times = bench.time_rounds(clock, found, rounds=25, warmup=2, turn=10)
    assert calls == [found[s.contender].name for s in bench.timing_schedule(3, 25, 2, 10)]
    assert {name: len(t) for name, t in times.items()} == {"warpfold": 25, "torch": 25, "cupy": 25}
    assert times["warpfold"] == pytest.approx([100.0] * 25) and times["cupy"] == pytest.approx([49000.0] * 25)


def load_axis_timing():
    """bench/python_axis_timing.py (a script beside the C++ bench, not part of the package)."""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "python_axis_timing.py")
    spec = importlib.util.spec_from_file_location("python_axis_timing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_axis_timing_reads_both_benches_and_prints_every_shape(tmp_path):
    import json

    timing = load_axis_timing()
    assert timing.short_name("void warpfold::detail::columns_kernel<warpfold::detail::columns_params<float, float, "
                             "float, warpfold::plus>, true>(warpfold::detail::columns_params<float>)") == \
        "columns_kernel<..., true>"
    assert timing.short_name("Memset (Device)") == "Memset"
    cpp = tmp_path / "cpp.json"
    cpp.write_text(json.dumps({"tables": [{"rows": [
        {"kind": "axis", "shape": "2^24 x 4, dim=0", "library": "warpfold", "median_us": 103.7},
        {"kind": "axis", "shape": "2^24 x 4, dim=0", "library": "roofline probe", "median_us": 66.7},
        {"kind": "segmented", "shape": "2^24 x 4", "library": "warpfold", "median_us": 295.5}]}]}))
    py = tmp_path / "py.json"
    py.write_text(json.dumps({"axis_rows": [{"shape": "2^24 x 4, dim=0", "library": "warpfold", "median_us": 121.0}]}))
    assert timing.medians_of(str(cpp), "rows") == {"2^24 x 4, dim=0": 103.7}
    assert timing.medians_of(str(cpp), "rows", "roofline probe") == {"2^24 x 4, dim=0": 66.7}
    assert timing.medians_of(str(py), "axis_rows") == {"2^24 x 4, dim=0": 121.0}
    assert timing.medians_of(None, "rows") == {} and timing.medians_of(str(tmp_path / "none.json"), "rows") == {}
    ours = {"gpu": 100.0, "gpu_long": 101.0, "queued": 101.5, "idle": 118.0, "cupy": 160.0, "spin": 150.0,
            "sleep": 119.0, "host": 14.0, "host_after_cupy": 40.0, "host_after_spin": 38.0, "host_after_sleep": 15.0,
            "kernels": "1 x columns_kernel<..., true> 99.0us"}
    theirs = {"gpu": 80.0, "gpu_long": 80.0, "idle": 86.0, "host": 5.0, "cupy": 120.0, "host_after_cupy": 20.0}
    rows = [{"shape": name, "cupy_us": 49000.0, "warpfold": ours, "torch": theirs}
            for name in ("2^24 x 4, dim=0", "2^24 x 4, dim=1")]
    lines = timing.table(rows, timing.medians_of(str(cpp), "rows"), {}, {})
    assert sum(1 for line in lines if line.startswith("2^24 x 4, dim=")) == 2
    assert any("columns_kernel<..., true> 99.0us" in line for line in lines)
    assert "warpfold idle - C++, per shape, µs: +14.3" in lines


def test_versions_come_from_the_module_or_its_distribution():
    found = bench.versions()
    assert found["warpfold"] not in ("?", "not importable")
    assert bench.distribution_version("pytest") == pytest.__version__  # no module of that name is asked
    assert bench.distribution_version("no-such-distribution-anywhere") == "?"
    assert bench.distribution_version(None) == "?"


def test_a_module_without_a_version_is_named_by_its_distribution(monkeypatch):
    """cuda.compute has no __version__: versions() asks importlib.metadata for its distribution's
    (DISTRIBUTIONS). Here a stand-in module, with pytest's distribution for cuda-cccl."""
    cuda, compute = types.ModuleType("cuda"), types.ModuleType("cuda.compute")
    cuda.compute = compute
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.compute", compute)
    monkeypatch.setitem(bench.DISTRIBUTIONS, "cuda.compute", "pytest")
    assert bench.versions()["cuda.compute"] == pytest.__version__
    compute.__version__ = "0.0.1"  # a module's own version comes first
    assert bench.versions()["cuda.compute"] == "0.0.1"


def test_a_float32_sum_of_float16_agrees_once_rounded_as_warpfolds():
    """cuda.compute's float32 result of a float16 sum is compared as warpfold returns it, rounded
    to float16: 65520 is the least float32 that rounds to inf, 65504 float16's largest finite
    value. Unrounded, each case of 65520 or more would go the other way, whatever the tolerance."""
    np = pytest.importorskip("numpy")
    assert bench.agrees(np.float16(np.inf), np.float32(65520.0), "float16")
    assert bench.agrees(np.float16(np.inf), np.float32(262144.0), "float16")
    assert not bench.agrees(np.float16(65504.0), np.float32(65520.0), "float16")  # 0.02% apart
    assert bench.agrees(np.float16(65504.0), np.float32(65519.0), "float16")
    assert not bench.agrees(np.float32(np.inf), np.float32(262144.0), "float32")  # float32 is not rounded


def test_a_finite_sum_never_agrees_with_an_infinite_one():
    np = pytest.importorskip("numpy")
    assert not bench.agrees(np.float32(1.0), np.float32(np.inf), "float32")  # inf is within any share of inf
    assert not bench.agrees(np.float32(np.inf), np.float32(1.0), "float32")
    assert not bench.agrees(np.float16(65504.0), np.float16(-np.inf), "float16")


def test_nan_agrees_with_nan_only():
    """A NaN in the input makes every library's sum NaN: that is agreement, and a NaN against a
    number is not."""
    np = pytest.importorskip("numpy")
    assert bench.agrees(np.float32(np.nan), np.float32(np.nan), "float32")
    assert bench.agrees(np.float16(np.nan), np.float32(np.nan), "float16")
    assert not bench.agrees(np.float32(np.nan), np.float32(1.0), "float32")
    assert not bench.agrees(np.float64(2.0), np.float64(np.nan), "float64")
    assert not bench.agrees(np.float32(np.nan), np.float32(np.inf), "float32")
