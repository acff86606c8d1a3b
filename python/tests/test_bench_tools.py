"""The benchmark's statistics, naming and summary, on made-up timings (no GPU needed)."""

import statistics

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
