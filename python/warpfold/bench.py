"""python -m warpfold.bench: warpfold.sum against torch.sum, cupy.sum and cuda.compute.reduce_into.

Every contender reads the same device buffer (CuPy and cuda.compute see the PyTorch tensor
without a copy). Per size and dtype: warm-up rounds, then timed calls with CUDA events around each
call, from an idle GPU (so a call's time includes its host time up to the launch), timed as the
C++ bench times (docs/design.md M2, M3): while the bytes a call moves fit in half the L2, one call
of each contender per round, each round in an order of its own (each contender follows each other
one equally often); past that, turns of 10 calls per contender, each turn after an untimed call of
its own. A call that fits in half the L2 is timed in --host-bound-rounds rounds (300), as its
time from idle is mostly host time, which spreads widely. Reported: each contender's median time
and spread, and the median of the per-round ratios
(their time / warpfold's, above 1: warpfold is faster) with a bootstrap 95% interval. Also the
per-call host time at 2^10 (calls issued back to back, no waiting in between).
With --axis, also warpfold.sum(x, dim) against torch.sum(x, dim) and cupy.sum(x, axis) on the
shapes of the C++ axis bench (`warpfold bench --segmented --axis`: float32 matrices from 2^24 x 4
to 4 x 2^24, 2^22 x 16, 2^13 x 2^13, 1 x 2^26, each over dim 1 and dim 0, and x.T.sum(1),
x[:, ::2].sum(1)), timed the same way, each result checked against a float64 sum.
Writes python-<GPU>-<date>.json (beside the C++ bench's reduce-*.json) into --out, default $OUT
or bench/results, and prints a summary table last.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

DEFAULT_LOG2_SIZES = (10, 12, 16, 20, 24, 28)
ALL_LOG2_SIZES = tuple(range(10, 31))
DEFAULT_DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int8")
CONTENDERS = ("warpfold", "torch", "cupy", "cccl")


# --- the axis shapes: `warpfold bench --segmented --axis` (src/bench/segmented_bench.cpp's
# segmented_bench_shapes), declared once for Python (bench/segmented_torch.py takes them from here) --

AXIS_COLS = (4, 64, 1024, 1 << 20, 1 << 24, 16, 1 << 13, 1 << 26)
# Strided views of a square matrix, reduced over dim 1 without a copy (the C++ bench's View).
AXIS_VIEWS = {"x.T.sum(1)": lambda x: x.T, "x[:, ::2].sum(1)": lambda x: x[:, ::2]}


class AxisBenchShape(NamedTuple):
    rows: int
    cols: int
    dim: int
    view: str = ""  # a key of AXIS_VIEWS, or "" for the matrix as it lies

    @property
    def name(self) -> str:
        return f"{count_text(self.rows)} x {count_text(self.cols)}, " + (self.view or f"dim={self.dim}")

    @property
    def outputs(self) -> int:
        if self.view:
            return self.cols if self.view == "x.T.sum(1)" else self.rows
        return self.rows if self.dim == 1 else self.cols

    @property
    def elements(self) -> int:
        return self.rows * self.cols // (2 if self.view == "x[:, ::2].sum(1)" else 1)


def count_text(x: int) -> str:
    """2^k for powers of two above 1024, else decimal (as the C++ bench names its shapes)."""
    if x > 1024 and x & (x - 1) == 0:
        return f"2^{x.bit_length() - 1}"
    return str(x)


def axis_bench_shapes(log2_elements: int) -> List[AxisBenchShape]:
    total = 1 << log2_elements
    side = 1 << (log2_elements // 2)
    return ([AxisBenchShape(total // cols, cols, dim) for cols in AXIS_COLS if cols <= total for dim in (1, 0)] +
            [AxisBenchShape(side, total // side, 1, view) for view in AXIS_VIEWS])


# --- statistics (pure Python: unit-tested without a GPU) ---------------------------------------

def bootstrap_median_interval(values: Sequence[float], resamples: int = 2000, seed: int = 1) -> Tuple[float, float]:
    """The 95% percentile-bootstrap interval of the median of `values`."""
    if len(values) < 2:
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[int(0.025 * (resamples - 1))], medians[int(round(0.975 * (resamples - 1)))]


def summarize(times_us: Sequence[float]) -> Dict[str, float]:
    ordered = sorted(times_us)
    return {"median_us": statistics.median(ordered), "min_us": ordered[0], "max_us": ordered[-1],
            "p10_us": ordered[int(0.1 * (len(ordered) - 1))], "p90_us": ordered[int(0.9 * (len(ordered) - 1))]}


def gpu_tag(device_name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'H100': the first word with a digit, after the vendor's words."""
    words = [w for w in re.split(r"[\s_]+", device_name) if w.upper() not in ("NVIDIA", "GEFORCE", "TESLA", "QUADRO")]
    for i, word in enumerate(words):
        if any(c.isdigit() for c in word):
            prefix = words[i - 1] + "-" if i > 0 and words[i - 1].upper() in ("RTX", "GTX") else ""
            return re.sub(r"[^A-Za-z0-9.-]", "", prefix + word) or "GPU"
    return "GPU"


def result_path(directory: str, tag: str, day: str) -> str:
    """python-<tag>-<day>.json in `directory`, with -2, -3, ... where that name is taken."""
    path = os.path.join(directory, f"python-{tag}-{day}.json")
    k = 2
    while os.path.exists(path):
        path = os.path.join(directory, f"python-{tag}-{day}-{k}.json")
        k += 1
    return path


def parse_sizes(text: str) -> Tuple[int, ...]:
    """'10,20,28' or '10-30' (log2 of the element counts)."""
    sizes: List[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = (int(v) for v in part.split("-"))
            sizes.extend(range(lo, hi + 1))
        elif part.strip():
            sizes.append(int(part))
    if not sizes or any(s < 0 or s > 34 for s in sizes):
        raise argparse.ArgumentTypeError(f"sizes are log2 element counts from 0 to 34, not {text!r}")
    return tuple(sizes)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m warpfold.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=DEFAULT_LOG2_SIZES,
                        help="log2 element counts, e.g. 10,20,28 or 10-30 (default: %(default)s)")
    parser.add_argument("--all-sizes", action="store_true", help="every power of two from 2^10 to 2^30")
    parser.add_argument("--dtypes", default=",".join(DEFAULT_DTYPES), help="comma-separated (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=30, help="timed rounds per size and dtype (default: %(default)s)")
    parser.add_argument("--host-bound-rounds", type=int, default=300,
                        help="timed rounds where a call moves at most half the L2: its time from idle is mostly "
                             "host time, whose spread needs more rounds for a narrow interval (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds first (default: %(default)s)")
    parser.add_argument("--overhead-calls", type=int, default=2000,
                        help="back-to-back calls for the per-call host time at 2^10 (default: %(default)s)")
    parser.add_argument("--no-cccl", action="store_true", help="leave cuda.compute out")
    parser.add_argument("--axis", action="store_true",
                        help="also warpfold.sum(x, dim) against torch.sum(x, dim) and cupy.sum(x, axis) on the C++ "
                             "axis bench's shapes")
    parser.add_argument("--axis-elements", type=int, default=26, metavar="LOG2",
                        help="log2 of the floats per axis shape, 10 to 30 (default: %(default)s)")
    parser.add_argument("--out", default=None, help="folder for the JSON (default: $OUT, else bench/results, else .)")
    args = parser.parse_args(argv)
    if args.all_sizes:
        args.sizes = ALL_LOG2_SIZES
    if args.rounds < 2 or args.host_bound_rounds < 2 or args.warmup < 0 or args.overhead_calls < 1:
        parser.error("--rounds and --host-bound-rounds must be at least 2, --warmup at least 0, --overhead-calls at "
                     "least 1")
    if not 10 <= args.axis_elements <= 30:
        parser.error("--axis-elements is 10 to 30")
    args.dtypes = tuple(d.strip() for d in args.dtypes.split(",") if d.strip())
    return args


# --- the contenders --------------------------------------------------------------------------

class Contender(NamedTuple):
    name: str
    call: Callable[[], object]


def make_input(torch, dtype: str, n: int):
    """Random data (never zeros): floats in [-1/2, 1], integers in [-100, 100], bool half set."""
    if dtype == "bool":
        return torch.rand(n, device="cuda") < 0.5
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        return (torch.rand(n, device="cuda", dtype=torch.float32) * 1.5 - 0.5).to(getattr(torch, dtype))
    low = 0 if dtype.startswith("uint") else -100
    return torch.randint(low, 101, (n,), device="cuda", dtype=getattr(torch, dtype))


def contenders(x, dtype: str, skip: Dict[str, str], use_cccl: bool) -> List[Contender]:
    """The calls to time on tensor x, each returning its result and each tried once here (which
    also compiles what the library compiles on first use); `skip` collects why one is missing."""
    import torch

    import warpfold

    found = [Contender("warpfold", lambda: warpfold.sum(x)), Contender("torch", lambda: torch.sum(x))]
    try:
        import cupy

        xc = cupy.from_dlpack(x)
        found.append(Contender("cupy", lambda: cupy.sum(xc)))
        found[-1].call()
    except Exception as error:  # noqa: BLE001 (any failure leaves the contender out, with the reason)
        skip[f"cupy {dtype}"] = _reason(error)
        return found[:2]
    if use_cccl:
        try:
            found.append(cccl_contender(cupy, xc, dtype))
        except Exception as error:  # noqa: BLE001
            skip[f"cuda.compute {dtype}"] = _reason(error)
    return found


def _reason(error: Exception) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:160]


def cccl_contender(cupy, xc, dtype: str) -> Contender:
    """cuda.compute.reduce_into with OpKind.PLUS, accumulating as warpfold does (64-bit integers,
    float32 for half types); its result is the one-element output array."""
    import numpy as np
    from cuda import compute

    acc = {"float64": np.float64, "float32": np.float32, "float16": np.float32, "bfloat16": np.float32}.get(dtype, np.int64)
    out = cupy.empty(1, dtype=acc)
    init = np.zeros(1, dtype=acc)
    n = xc.size

    def call():
        compute.reduce_into(d_in=xc, d_out=out, num_items=n, op=compute.OpKind.PLUS, h_init=init)
        return out

    call()  # builds (JIT-compiles) the reduce once, here
    return Contender("cccl", call)


# --- timing: the C++ harness's (src/harness/gpu_timer.hpp time_in_turns; docs/design.md M2, M3) ----

SERIES_TURN = 10  # timed calls per turn for inputs past half the L2 (the C++ bench's kSeriesTurn)


def round_order(count: int, round_index: int) -> List[int]:
    """The order of `count` contenders in round `round_index`, as src/harness/run_order.hpp's
    round_order: the round number read in a mixed radix, one digit per position, so that over
    count! rounds each order comes once and each contender directly follows each other one
    equally often."""
    left, order = list(range(count)), []
    for base in range(count, 0, -1):
        round_index, digit = divmod(round_index, base)
        order.append(left.pop(digit))
    return order


def series_turn(nbytes: int, l2_bytes: int) -> int:
    """Timed calls per turn: 1 (one call of each contender per round) while the bytes a call moves
    fit in half the L2, else SERIES_TURN, as the C++ bench; an unknown L2 (0) takes turns."""
    return 1 if 0 < 2 * nbytes <= l2_bytes else SERIES_TURN


def rounds_for(turn: int, args) -> int:
    """Timed rounds of a row timed in turns of `turn` calls: --host-bound-rounds where one call per
    round is timed (the call fits in half the L2), else --rounds."""
    return args.host_bound_rounds if turn == 1 else args.rounds


def l2_bytes(torch) -> int:
    """The current GPU's L2 size (0 where PyTorch does not say)."""
    return int(getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 0)


class Step(NamedTuple):
    contender: int  # index into the contenders
    timed: bool


def timing_schedule(count: int, rounds: int, warmup: int, turn: int = 1) -> List[Step]:
    """The calls time_rounds makes, in order: `warmup` untimed rounds, then turns of `turn` timed
    calls of each contender, the contenders of each round in round_order, until each has `rounds`
    timed calls. With turn > 1 every turn begins with an untimed call of its own contender, so no
    timed call follows another library's (a long call slows the one after it: docs/design.md M9)."""
    steps: List[Step] = []
    for r in range(warmup):
        steps.extend(Step(j, False) for j in round_order(count, r))
    done, r = 0, 0
    while done < rounds:
        calls = min(turn, rounds - done)
        for j in round_order(count, r):
            if turn > 1:
                steps.append(Step(j, False))
            steps.extend([Step(j, True)] * calls)
        done, r = done + calls, r + 1
    return steps


def time_rounds(torch, found: List[Contender], rounds: int, warmup: int, turn: int = 1) -> Dict[str, List[float]]:
    """µs per call of each contender in timing_schedule's order: CUDA events around each call,
    each call (timed or not) waited for, so every timed call starts from an idle GPU. Sample i of
    every contender comes from the same round or turn (for per-round ratios)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times: Dict[str, List[float]] = {c.name: [] for c in found}
    torch.cuda.synchronize()
    for step in timing_schedule(len(found), rounds, warmup, turn):
        contender = found[step.contender]
        start.record()
        contender.call()
        end.record()
        end.synchronize()
        if step.timed:
            times[contender.name].append(start.elapsed_time(end) * 1000.0)
    return times


def host_time_per_call(torch, found: List[Contender], calls: int, rounds: int = 5) -> Dict[str, float]:
    """Median over rounds of the host µs per call for `calls` calls issued back to back."""
    per_call: Dict[str, List[float]] = {c.name: [] for c in found}
    for r in range(rounds):
        shift = r % len(found)
        for contender in found[shift:] + found[:shift]:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls):
                contender.call()
            per_call[contender.name].append((time.perf_counter() - t0) * 1e6 / calls)
            torch.cuda.synchronize()
    return {name: statistics.median(v) for name, v in per_call.items()}


def agrees(ours, theirs, dtype: str) -> bool:
    """Whether another library's sum matches warpfold's: integers exactly, floats to a tolerance
    of their type (the fold orders differ)."""
    a, b = float(ours.item()), float(theirs.item())
    if dtype == "float16":  # as warpfold returns it: cuda.compute's float32 result does not overflow
        import numpy as np

        with np.errstate(over="ignore"):
            b = float(np.float16(b))
    if a == b:  # infinities included (a float16 sum of 2^20 elements overflows)
        return True
    if math.isnan(a) or math.isnan(b):  # NaN agrees with NaN only
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):  # one overflowed and the other did not: no tolerance covers it
        return False
    tolerance = {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-3, "float64": 1e-9}.get(dtype, 0.0)
    return abs(a - b) <= tolerance * max(1.0, abs(b))


def bench_one(torch, dtype: str, log2_n: int, args, skip: Dict[str, str]) -> List[dict]:
    n = 1 << log2_n
    x = make_input(torch, dtype, n)
    found = contenders(x, dtype, skip, not args.no_cccl)
    ours = found[0].call()
    checks = {c.name: "ok" if c.name == "warpfold" or agrees(ours, c.call(), dtype) else "MISMATCH" for c in found}
    turn = series_turn(n * x.element_size(), args.l2_bytes)
    times = time_rounds(torch, found, rounds_for(turn, args), args.warmup, turn)
    rows = []
    for contender in found:
        t = times[contender.name]
        ratios = [their / mine for their, mine in zip(t, times["warpfold"])]
        row = {"dtype": dtype, "n": n, "log2_n": log2_n, "library": contender.name, **summarize(t),
               "gbps": n * x.element_size() / statistics.median(t) / 1e3, "check": checks[contender.name]}
        if contender.name != "warpfold":
            row["ratio_vs_warpfold"] = statistics.median(ratios)
            row["ratio_ci95"] = list(bootstrap_median_interval(ratios))
        rows.append(row)
    del x
    return rows


def axis_matrix(torch, shape: AxisBenchShape):
    """The float32 matrix of one axis shape, uniform in [-1, 1) and never zero, as the C++ bench's."""
    generator = torch.Generator(device="cuda").manual_seed(shape.rows * 31 + shape.cols * 7 + shape.dim)
    x = torch.rand(shape.rows, shape.cols, device="cuda", generator=generator) * 2 - 1
    x[x == 0] = 0.5
    return x


def axis_contenders(x, shape: AxisBenchShape, skip: Dict[str, str]) -> List[Contender]:
    """warpfold, torch and cupy on one view of x (CuPy sees the tensor without a copy)."""
    import torch

    import warpfold

    view = AXIS_VIEWS[shape.view] if shape.view else (lambda m: m)
    v, dim = view(x), shape.dim
    found = [Contender("warpfold", lambda: warpfold.sum(v, dim=dim)), Contender("torch", lambda: torch.sum(v, dim=dim))]
    try:
        import cupy

        vc = view(cupy.from_dlpack(x))
        found.append(Contender("cupy", lambda: cupy.sum(vc, axis=dim)))
        found[-1].call()
    except Exception as error:  # noqa: BLE001 (any failure leaves the contender out, with the reason)
        skip[f"cupy {shape.name}"] = _reason(error)
    return found


def axis_check(torch, v, dim: int, got) -> str:
    """'ok', or how far the result is beyond len * 2^-24 * sum|x| of a float64 sum, per output."""
    got = torch.from_dlpack(got) if not isinstance(got, torch.Tensor) else got
    exact = v.double().sum(dim=dim)
    bound = v.shape[dim] * 2.0**-24 * v.double().abs().sum(dim=dim)
    excess = ((got.double() - exact).abs() - bound).max().item()
    return "ok" if excess <= 0 else f"WRONG by {excess:.3g} beyond the bound"


def bench_axis_shape(torch, shape: AxisBenchShape, args, skip: Dict[str, str]) -> List[dict]:
    x = axis_matrix(torch, shape)
    found = axis_contenders(x, shape, skip)
    v = AXIS_VIEWS[shape.view](x) if shape.view else x
    checks = {c.name: axis_check(torch, v, shape.dim, c.call()) for c in found}
    moved = (shape.elements + shape.outputs) * 4  # distinct bytes: the input read and the outputs written
    turn = series_turn(moved, args.l2_bytes)
    times = time_rounds(torch, found, rounds_for(turn, args), args.warmup, turn)
    rows = []
    for contender in found:
        t = times[contender.name]
        row = {"shape": shape.name, "rows": shape.rows, "cols": shape.cols, "dim": shape.dim, "view": shape.view,
               "library": contender.name, **summarize(t), "gbps": moved / statistics.median(t) / 1e3,
               "check": checks[contender.name]}
        if contender.name != "warpfold":
            ratios = [their / mine for their, mine in zip(t, times["warpfold"])]
            row["ratio_vs_warpfold"] = statistics.median(ratios)
            row["ratio_ci95"] = list(bootstrap_median_interval(ratios))
        rows.append(row)
    del x, v
    return rows


def axis_summary_lines(rows: List[dict]) -> List[str]:
    lines = ["warpfold.sum(x, dim) against torch.sum(x, dim) / cupy.sum(x, axis), float32; ratio = their median "
             "time / warpfold's [95% CI]"]
    keyed = {(r["shape"], r["library"]): r for r in rows}
    slower = []
    for name in dict.fromkeys(r["shape"] for r in rows):
        ours = keyed[(name, "warpfold")]
        cells = []
        for library in ("torch", "cupy"):
            row = keyed.get((name, library))
            if row is None:
                cells.append(f"{'-':>10} {'':>22}")
                continue
            lo, hi = row["ratio_ci95"]
            cells.append(f"{row['median_us']:8.1f}us {row['ratio_vs_warpfold']:6.2f} [{lo:5.2f},{hi:5.2f}]")
            if row["ratio_vs_warpfold"] < 1.0:
                slower.append(f"{name} vs {library} ({row['ratio_vs_warpfold']:.2f})")
        lines.append(f"{name:30} {ours['median_us']:8.1f}us {ours['gbps']:7.0f} GB/s " + " ".join(cells))
    lines.append("axis shapes slower than torch or cupy: " + ("; ".join(slower) if slower else "none"))
    wrong = [f"{r['shape']} {r['library']}: {r['check']}" for r in rows if r["check"] != "ok"]
    lines.append("axis results beyond the bound: " + ("; ".join(wrong) if wrong else "none"))
    return lines


def commit() -> str:
    """The commit of the tree run from: .commit's first line where there is one (written before a copy of the
    tree goes to a GPU machine, whose .git may be missing or lag), else git's HEAD, else "unknown"."""
    try:
        with open(".commit") as f:
            line = f.readline().strip()
        if line:
            return line
    except OSError:
        pass
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# The distribution of a module that has no __version__ of its own.
DISTRIBUTIONS = {"cuda.compute": "cuda-cccl"}


def versions() -> Dict[str, str]:
    found = {"python": sys.version.split()[0]}
    for module in ("warpfold", "torch", "cupy", "numpy", "cuda.compute"):
        try:
            imported = __import__(module, fromlist=["_"])
        except Exception:  # noqa: BLE001
            found[module] = "not importable"
            continue
        found[module] = getattr(imported, "__version__", None) or distribution_version(DISTRIBUTIONS.get(module))
    return found


def distribution_version(name: Optional[str]) -> str:
    """The installed version of the distribution `name`, or "?" where it is unknown."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name) if name else "?"
    except PackageNotFoundError:
        return "?"


def summary_lines(result: dict) -> List[str]:
    rows, meta = result["rows"], result["meta"]
    lines = [f"warpfold.sum against torch.sum / cupy.sum / cuda.compute on {meta['device']}, {meta['rounds']} rounds "
             f"({meta.get('host_bound_rounds', meta['rounds'])} where a call fits in half the L2); "
             "ratio = their median time / warpfold's (above 1: warpfold faster) [95% CI]"]
    lines.append(f"{'dtype':9} {'n':>5} {'warpfold':>10} " + " ".join(f"{c:>10} {'ratio [95% CI]':>22}" for c in
                                                                     CONTENDERS[1:]))
    keyed = {(r["dtype"], r["log2_n"], r["library"]): r for r in rows}
    slower = []
    for dtype in meta["dtypes"]:
        for log2_n in meta["log2_sizes"]:
            ours = keyed.get((dtype, log2_n, "warpfold"))
            if ours is None:
                continue
            cells = []
            for name in CONTENDERS[1:]:
                row = keyed.get((dtype, log2_n, name))
                if row is None:
                    cells.append(f"{'-':>10} {'':>22}")
                    continue
                lo, hi = row["ratio_ci95"]
                flag = "" if row["check"] == "ok" else " !"
                cells.append(f"{row['median_us']:8.2f}us {row['ratio_vs_warpfold']:6.2f} [{lo:5.2f},{hi:5.2f}]{flag}")
                if name in ("torch", "cupy") and row["ratio_vs_warpfold"] < 1.0:
                    slower.append(f"{dtype} 2^{log2_n} vs {name} ({row['ratio_vs_warpfold']:.2f})")
            lines.append(f"{dtype:9} 2^{log2_n:<3} {ours['median_us']:8.2f}us " + " ".join(cells))
    overhead = result.get("host_us_per_call_2e10")
    if overhead:
        lines.append("host time per call at 2^10 (float32, back to back): " +
                     ", ".join(f"{k} {v:.2f} us" for k, v in overhead.items()))
    target = keyed.get(("int32", 28, "torch"))
    if target:
        verdict = "met" if target["ratio_vs_warpfold"] >= 4 else "NOT met"
        lines.append(f"target int32 2^28: {target['ratio_vs_warpfold']:.2f}x torch.sum (>= 4: {verdict})")
    lines.append("slower than torch.sum or cupy.sum at: " + ("; ".join(slower) if slower else "none"))
    mismatches = [f"{r['dtype']} 2^{r['log2_n']} {r['library']}" for r in rows if r["check"] != "ok"]
    lines.append("results that disagree with warpfold's: " + ("; ".join(mismatches) if mismatches else "none"))
    for name, reason in result["skipped"].items():
        lines.append(f"{name} left out: {reason}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("warpfold.bench: PyTorch is not installed (the bench allocates and times through it)", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("warpfold.bench: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    properties = torch.cuda.get_device_properties(torch.cuda.current_device())
    args.l2_bytes = l2_bytes(torch)
    skip: Dict[str, str] = {}
    rows: List[dict] = []
    for dtype in args.dtypes:
        for log2_n in args.sizes:
            rows.extend(bench_one(torch, dtype, log2_n, args, skip))
            torch.cuda.empty_cache()
    axis_rows: List[dict] = []
    if args.axis:
        for shape in axis_bench_shapes(args.axis_elements):
            axis_rows.extend(bench_axis_shape(torch, shape, args, skip))
            torch.cuda.empty_cache()
    small = make_input(torch, "float32", 1 << 10)
    overhead = host_time_per_call(torch, contenders(small, "float32", skip, not args.no_cccl), args.overhead_calls)
    now = datetime.datetime.now(datetime.timezone.utc)
    result = {
        "meta": {"command": "python -m warpfold.bench " + " ".join(argv if argv is not None else sys.argv[1:]),
                 "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": commit(), "device": properties.name,
                 "sm_count": properties.multi_processor_count, "versions": versions(), "rounds": args.rounds,
                 "host_bound_rounds": args.host_bound_rounds, "warmup": args.warmup, "dtypes": list(args.dtypes), "log2_sizes": list(args.sizes),
                 "l2_bytes": args.l2_bytes, "series_turn": SERIES_TURN},
        "notes": ["median_us etc.: CUDA events around one call from an idle GPU (host time to the launch included); "
                  "one call of each contender per round (host_bound_rounds rounds), in balanced orders, while a "
                  "call moves at most half the L2 (l2_bytes), else turns of series_turn calls each, every turn after an untimed call of its own",
                  "ratio_vs_warpfold: median over rounds of (this library's time / warpfold's in the same round)",
                  "ratio_ci95: 95% percentile bootstrap interval of that median",
                  "host_us_per_call_2e10: host time per call, float32 at 2^10, calls back to back",
                  "axis_rows (--axis): gbps counts the input read and the outputs written; check: against a "
                  "float64 sum within len * 2^-24 * sum|x| per output"],
        "rows": rows, "host_us_per_call_2e10": overhead, "skipped": skip,
    }
    if args.axis:
        result["meta"]["axis_log2_elements"] = args.axis_elements
        result["axis_rows"] = axis_rows
    directory = args.out or os.environ.get("OUT") or ("bench/results" if os.path.isdir("bench/results") else ".")
    os.makedirs(directory, exist_ok=True)
    path = result_path(directory, gpu_tag(properties.name), now.strftime("%Y-%m-%d"))
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(summary_lines(result) + (axis_summary_lines(axis_rows) if axis_rows else [])))
    print(f"JSON: {path}")
    # warpfold disagreeing with torch.sum (the reference) or beyond an axis bound fails the run; other
    # libraries' checks are reported.
    full_ok = all(r["check"] == "ok" for r in rows if r["library"] == "torch")
    return 0 if full_ok and all(r["check"] == "ok" for r in axis_rows if r["library"] == "warpfold") else 2


if __name__ == "__main__":
    sys.exit(main())
