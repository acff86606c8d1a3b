#!/usr/bin/env python3
"""Where the time of warpfold.sum(x, dim) from Python goes, on the shapes of `warpfold bench --axis`.

`python -m warpfold.bench --axis` and the C++ bench time one call from an idle GPU with CUDA
events around it, so a call's time is its host time up to the launch plus its GPU time, and may
carry what the call before it left behind. Per shape (float32, the bench's matrices), this script
measures warpfold's call and torch.sum's apart:

  gpu        the GPU time alone: a spinning kernel holds the stream while the call is queued, so
             the events see only the call's own work (docs/design.md M6);
  gpu_long   the same behind a spin as long as cupy.sum(x, axis) takes: the GPU after a long
             kernel on one SM, without the host waiting;
  host       the host time of the call (perf_counter; it only queues work);
  idle       events around one call from an idle GPU, right after an untimed call of its own
             (the bench's number);
  cupy       the same right after cupy.sum(x, axis) on the same view (what the bench's rotation gave
             warpfold in 2 rounds of 3 before it took the C++ bench's orders and turns);
  spin, sleep  the same right after a one-SM spin as long as cupy's call, or after the host slept
             that long with the GPU idle;
  queued     events around 20 calls back to back, per call (the host's time hidden behind the GPU's);
  kernels    what one call launches (kernels, memsets, copies) and for how long (torch.profiler,
             after every timing: CUPTI may stay attached and slow the launches that follow).

With --cpp, each shape's warpfold and roofline-probe medians of `warpfold bench --axis --format
json` are printed beside; with --bench, the medians of `python -m warpfold.bench --axis`'s JSON.
Writes python-axis-timing.json into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence

HOLD_US = 500.0  # the spin that holds the stream while a call is queued: longer than any call's host time
QUEUED_CALLS = 20


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, default=26, metavar="LOG2", help="log2 of the floats per shape")
    parser.add_argument("--samples", type=int, default=11, help="calls timed per measurement (default: %(default)s)")
    parser.add_argument("--cpp", help="the JSON of `warpfold bench --axis --format json` to print beside")
    parser.add_argument("--bench", help="the JSON of `python -m warpfold.bench --axis` to print beside")
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the JSON (default: $OUT or .)")
    return parser.parse_args(argv)


class Timer:
    """CUDA events and a spinning kernel (torch.cuda._sleep) on PyTorch's current stream, which
    warpfold and CuPy (the legacy default stream) share here."""

    def __init__(self, torch, samples: int):
        self.torch, self.samples = torch, samples
        self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        cycles = 1 << 22
        torch.cuda._sleep(cycles)  # warm
        self.start.record()
        torch.cuda._sleep(cycles)
        self.end.record()
        self.end.synchronize()
        self.cycles_per_us = cycles / (self.start.elapsed_time(self.end) * 1000.0)

    def spin(self, us: float) -> None:
        self.torch.cuda._sleep(max(1, int(us * self.cycles_per_us)))

    def events_us(self, call: Callable[[], object], before: Callable[[], object], wait: bool = True):
        """(median µs between events around call(), median host µs of call()), `before` run first,
        waited for where `wait`."""
        cuda = self.torch.cuda
        gpu, host = [], []
        for _ in range(self.samples):
            cuda.synchronize()
            before()
            if wait:
                cuda.synchronize()
            self.start.record()
            t0 = time.perf_counter()
            call()
            host.append((time.perf_counter() - t0) * 1e6)
            self.end.record()
            self.end.synchronize()
            gpu.append(self.start.elapsed_time(self.end) * 1000.0)
        return statistics.median(gpu), statistics.median(host)

    def queued_us(self, call: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            self.torch.cuda.synchronize()
            self.start.record()
            for _ in range(QUEUED_CALLS):
                call()
            self.end.record()
            self.end.synchronize()
            times.append(self.start.elapsed_time(self.end) * 1000.0 / QUEUED_CALLS)
        return statistics.median(times)


def launched(torch, call: Callable[[], object], calls: int = 5) -> str:
    """The GPU work of one call as torch.profiler (CUPTI) sees it: 'count x name mean_us' per kind."""
    try:
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile

        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                call()
            torch.cuda.synchronize()
        found: Dict[str, List[float]] = {}
        for e in prof.events():
            if e.device_type == DeviceType.CUDA:
                found.setdefault(short_name(e.name), []).append(e.time_range.end - e.time_range.start)
        return "; ".join(f"{len(v) / calls:g} x {k} {statistics.mean(v):.1f}us" for k, v in found.items()) or "none seen"
    except Exception as error:  # noqa: BLE001 (the profiler is optional: say why it is missing)
        return f"profiler unavailable: {type(error).__name__}: {error}".splitlines()[0][:120]


def short_name(name: str) -> str:
    """'void warpfold::detail::columns_kernel<...>(...)' -> 'columns_kernel<..., true>'."""
    head = name.replace("void ", "").split("(")[0]
    base = head.split("<")[0].split("::")[-1].strip()
    return base + ("<..., true>" if head.rstrip().endswith("true>") else "")


def medians_of(path: Optional[str], key: str, library: str = "warpfold") -> Dict[str, float]:
    """{shape: median_us} of `library`'s rows in a bench JSON (the C++ bench's table or the Python
    bench's axis_rows); {} without one."""
    if not path or not os.path.exists(path):
        return {}
    doc = json.load(open(path))
    rows = doc["tables"][0]["rows"] if "tables" in doc else doc.get(key, [])
    return {r["shape"]: r["median_us"] for r in rows if r["library"] == library and r.get("kind", "axis") == "axis"}


class Calls(NamedTuple):
    warpfold: Callable[[], object]
    torch: Callable[[], object]
    cupy: Callable[[], object]


def calls_on(torch, cupy, warpfold, bench, shape) -> Calls:
    """The three sums on the bench's matrix of `shape` (CuPy sees the tensor without a copy),
    each called once (CuPy compiles its reduction on first use)."""
    x = bench.axis_matrix(torch, shape)
    view = bench.AXIS_VIEWS[shape.view] if shape.view else (lambda m: m)
    v, vc, dim = view(x), view(cupy.from_dlpack(x)), shape.dim
    calls = Calls(lambda: warpfold.sum(v, dim=dim), lambda: torch.sum(v, dim=dim), lambda: cupy.sum(vc, axis=dim))
    for call in calls:
        call()
    return calls


def measure(timer: Timer, calls: Calls, name: str) -> dict:
    cupy_us, _ = timer.events_us(calls.cupy, calls.cupy)
    row = {"shape": name, "cupy_us": cupy_us}
    for library, call in (("warpfold", calls.warpfold), ("torch", calls.torch)):
        r = {}
        r["gpu"], _ = timer.events_us(call, lambda: timer.spin(HOLD_US), wait=False)
        r["gpu_long"], _ = timer.events_us(call, lambda: timer.spin(cupy_us), wait=False)
        r["idle"], r["host"] = timer.events_us(call, call)
        r["cupy"], r["host_after_cupy"] = timer.events_us(call, calls.cupy)
        if library == "warpfold":
            r["spin"], r["host_after_spin"] = timer.events_us(call, lambda: timer.spin(cupy_us))
            r["sleep"], r["host_after_sleep"] = timer.events_us(call, lambda: time.sleep(cupy_us * 1e-6))
            r["queued"] = timer.queued_us(call)
        row[library] = r
    return row


def table(rows: List[dict], cpp: Dict[str, float], probe: Dict[str, float], bench_medians: Dict[str, float]) -> List[str]:
    cell = lambda v: f"{v:7.1f}" if v is not None else f"{'-':>7}"  # noqa: E731
    lines = ["warpfold.sum(x, dim) from Python, µs (medians). C++, probe: `warpfold bench --axis`'s warpfold and "
             "roofline probe; bench: python -m warpfold.bench --axis; h_*: the call's host time in that case",
             f"{'shape':30} {'C++':>7} {'probe':>7} {'bench':>7} | {'gpu':>6} {'gpu_lng':>7} {'queued':>6} {'idle':>6} "
             f"{'cupy':>6} {'spin':>6} {'sleep':>6} | {'host':>5} {'h_cupy':>6} {'h_spin':>6} {'h_slp':>6} | "
             f"{'torch':>6} {'t_idle':>6} {'t_cupy':>6} | cupy"]
    for row in rows:
        w, t, name = row["warpfold"], row["torch"], row["shape"]
        lines.append(f"{name:30} {cell(cpp.get(name))} {cell(probe.get(name))} {cell(bench_medians.get(name))} | "
                     f"{w['gpu']:6.1f} {w['gpu_long']:7.1f} {w['queued']:6.1f} {w['idle']:6.1f} {w['cupy']:6.1f} "
                     f"{w['spin']:6.1f} {w['sleep']:6.1f} | {w['host']:5.1f} {w['host_after_cupy']:6.1f} "
                     f"{w['host_after_spin']:6.1f} {w['host_after_sleep']:6.1f} | {t['gpu']:6.1f} {t['idle']:6.1f} "
                     f"{t['cupy']:6.1f} | {row['cupy_us']:.0f}")
    lines.append("what one warpfold call launches (torch.profiler: calls per warpfold call, mean time):")
    lines.extend(f"  {row['shape']:30} {row['warpfold']['kernels']}" for row in rows)
    if cpp:
        known = [r for r in rows if r["shape"] in cpp]
        for what in ("idle", "gpu", "queued"):
            lines.append(f"warpfold {what} - C++, per shape, µs: " +
                         " ".join(f"{r['warpfold'][what] - cpp[r['shape']]:+.1f}" for r in known))
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    import cupy
    import torch

    import warpfold
    from warpfold import bench

    timer = Timer(torch, args.samples)
    shapes = bench.axis_bench_shapes(args.elements)
    rows = []
    for shape in shapes:
        rows.append(measure(timer, calls_on(torch, cupy, warpfold, bench, shape), shape.name))
        torch.cuda.empty_cache()  # the shape's matrix went with its calls
    for shape, row in zip(shapes, rows):  # last: CUPTI may stay attached and slow later launches
        row["warpfold"]["kernels"] = launched(torch, calls_on(torch, cupy, warpfold, bench, shape).warpfold)
        torch.cuda.empty_cache()
    cpp, probe = medians_of(args.cpp, "rows"), medians_of(args.cpp, "rows", "roofline probe")
    bench_medians = medians_of(args.bench, "axis_rows")
    lines = table(rows, cpp, probe, bench_medians)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "python-axis-timing.json")
    with open(path, "w") as f:
        json.dump({"meta": {"device": torch.cuda.get_device_name(), "commit": bench.commit(), "samples": args.samples,
                            "cpp": args.cpp, "bench": args.bench, "spin_cycles_per_us": timer.cycles_per_us},
                   "rows": rows, "cpp_us": cpp, "probe_us": probe, "bench_us": bench_medians}, f, indent=1)
    print("\n".join(lines))
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
