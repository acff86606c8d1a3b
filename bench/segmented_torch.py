#!/usr/bin/env python3
"""torch.sum(dim) and cupy.sum(axis) on the shapes of `warpfold bench --axis`.

The C++ bench (`warpfold bench --segmented --axis`) times warpfold, CUB and a roofline probe; this
script times the frameworks people call on the same matrices (2^26 floats each by default: every
shape of the C++ bench's axis kind, dim=1 and dim=0, and its strided views x.T.sum(1) and
x[:, ::2].sum(1)), so that the two JSON files side by side compare warpfold with PyTorch and CuPy. A library that cannot be imported is skipped with a
message; with neither, the script writes nothing and exits 0.

Per shape: one float32 matrix of uniform values in [-1, 1) (never zero); every library's result is
checked against a float64 sum of the same matrix within len * 2^-24 * sum|x| (the bound that holds
for any order of the additions, as the C++ bench checks); then warm-up rounds and timed calls,
CUDA events around each, in the C++ bench's orders and turns (the timing of
python/warpfold/bench.py, loaded from there). GB/s counts the distinct bytes moved: the input
read and the outputs written, as the C++ bench does.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import statistics
import sys
from typing import Dict, List, NamedTuple, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

def load_timing_helpers():
    """python/warpfold/bench.py as a module of its own: its timing and statistics import only the
    standard library at load time, so the warpfold package need not be built."""
    path = os.path.join(ROOT, "python", "warpfold", "bench.py")
    spec = importlib.util.spec_from_file_location("warpfold_bench_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


helpers = load_timing_helpers()


# The shapes of `warpfold bench --axis`, declared once for Python (python/warpfold/bench.py).
VIEWS, Shape, shapes = helpers.AXIS_VIEWS, helpers.AxisBenchShape, helpers.axis_bench_shapes


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, default=26, metavar="LOG2",
                        help="log2 of the floats per shape, 10 to 30, as the C++ bench's --elements (default: 26)")
    parser.add_argument("--rounds", type=int, default=50, help="timed rounds per shape (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed rounds first (default: %(default)s)")
    parser.add_argument("--out", default=None,
                        help="the JSON file (default: bench/results/segmented-python-<GPU>-<date>.json)")
    parser.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU needed)")
    args = parser.parse_args(argv)
    if not 10 <= args.elements <= 30 or args.rounds < 2 or args.warmup < 0:
        parser.error("--elements is 10 to 30, --rounds at least 2, --warmup at least 0")
    return args


# --- the libraries -------------------------------------------------------------------------------

class Library(NamedTuple):
    name: str
    module: object


def importable(skipped: Dict[str, str]) -> List[Library]:
    found = []
    for name in ("torch", "cupy"):
        try:
            module = __import__(name)
            if name == "torch" and not module.cuda.is_available():
                raise RuntimeError("no CUDA device visible to PyTorch")
            if name == "cupy":
                module.cuda.runtime.getDeviceCount()
            found.append(Library(name, module))
        except Exception as error:  # noqa: BLE001 (any failure leaves the library out, with the reason)
            skipped[name] = f"{type(error).__name__}: {error}".splitlines()[0][:160]
    return found


class CupyEvents:
    """torch.cuda's Event and synchronize, from CuPy, for helpers.time_rounds without PyTorch."""

    class Event:
        def __init__(self, enable_timing: bool = True):
            import cupy

            self._cupy = cupy
            self._event = cupy.cuda.Event()

        def record(self):
            self._event.record()

        def synchronize(self):
            self._event.synchronize()

        def elapsed_time(self, end) -> float:
            return self._cupy.cuda.get_elapsed_time(self._event, end._event)

    def __init__(self, cupy):
        self.cuda = self
        self._cupy = cupy

    def synchronize(self):
        self._cupy.cuda.Device().synchronize()


def make_matrix(libs: List[Library], shape: Shape, seed: int):
    """{library name: its view of one device matrix} (CuPy sees PyTorch's tensor without a copy)."""
    by_name = {lib.name: lib.module for lib in libs}
    if "torch" in by_name:
        torch = by_name["torch"]
        generator = torch.Generator(device="cuda").manual_seed(seed)
        x = torch.rand(shape.rows, shape.cols, device="cuda", generator=generator) * 2 - 1
        x[x == 0] = 0.5
        views = {"torch": x}
        if "cupy" in by_name:
            views["cupy"] = by_name["cupy"].from_dlpack(x)
        return views
    cupy = by_name["cupy"]
    x = cupy.random.default_rng(seed).random((shape.rows, shape.cols), dtype=cupy.float32) * 2 - 1
    x[x == 0] = 0.5
    return {"cupy": x}


def sum_call(lib: Library, x, dim: int):
    if lib.name == "torch":
        return lambda: lib.module.sum(x, dim=dim)
    return lambda: lib.module.sum(x, axis=dim)


def check(lib: Library, x, dim: int, got) -> str:
    """'ok', or 'WRONG ...' for the largest error beyond len * 2^-24 * sum|x| of its output."""
    if lib.name == "torch":
        exact = x.double().sum(dim=dim)
        bound = x.shape[dim] * 2.0**-24 * x.double().abs().sum(dim=dim)
        excess = ((got.double() - exact).abs() - bound).max().item()
    else:
        cupy = lib.module
        exact = x.astype(cupy.float64).sum(axis=dim)
        bound = x.shape[dim] * 2.0**-24 * cupy.abs(x.astype(cupy.float64)).sum(axis=dim)
        excess = float((cupy.abs(got.astype(cupy.float64) - exact) - bound).max())
    return "ok" if excess <= 0 else f"WRONG by {excess:.3g} beyond the bound"


def bench_shape(libs: List[Library], shape: Shape, args) -> List[dict]:
    views = make_matrix(libs, shape, seed=shape.rows * 31 + shape.cols * 7 + shape.dim)
    if shape.view:
        views = {name: VIEWS[shape.view](x) for name, x in views.items()}
    found, checks = [], {}
    for lib in libs:
        call = sum_call(lib, views[lib.name], shape.dim)
        checks[lib.name] = check(lib, views[lib.name], shape.dim, call())
        found.append(helpers.Contender(lib.name, call))
    events = libs[0].module if libs[0].name == "torch" else CupyEvents(libs[0].module)
    elements = shape.elements
    moved = (elements + shape.outputs) * 4
    times = helpers.time_rounds(events, found, args.rounds, args.warmup, helpers.series_turn(moved, args.l2_bytes))
    rows = []
    for contender in found:
        t = times[contender.name]
        rows.append({"kind": "axis", "shape": shape.name, "rows": shape.rows, "cols": shape.cols, "dim": shape.dim, "view": shape.view,
                     "elements": elements, "segments": shape.outputs, "library": contender.name,
                     **helpers.summarize(t), "gbps": moved / statistics.median(t) / 1e3,
                     "check": checks[contender.name]})
    return rows


def device_name(libs: List[Library]) -> str:
    lib = libs[0]
    if lib.name == "torch":
        return lib.module.cuda.get_device_name()
    props = lib.module.cuda.runtime.getDeviceProperties(lib.module.cuda.Device().id)
    return props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])


def l2_bytes(libs: List[Library]) -> int:
    lib = libs[0]
    if lib.name == "torch":
        return helpers.l2_bytes(lib.module)
    return int(lib.module.cuda.runtime.getDeviceProperties(lib.module.cuda.Device().id).get("l2CacheSize", 0))


def summary_lines(result: dict) -> List[str]:
    lines = [f"torch.sum(dim) / cupy.sum(axis) on {result['meta']['device']}, {result['meta']['rounds']} rounds"]
    for row in result["rows"]:
        lines.append(f"{row['shape']:24} {row['library']:6} {row['median_us']:10.2f} us {row['gbps']:8.1f} GB/s  "
                     f"{row['check']}")
    for name, reason in result["skipped"].items():
        lines.append(f"{name} skipped: {reason}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.list:
        print("\n".join(s.name for s in shapes(args.elements)))
        return 0
    skipped: Dict[str, str] = {}
    libs = importable(skipped)
    if not libs:
        print("segmented_torch.py: skipped, neither torch nor cupy can be used here: " +
              "; ".join(f"{k}: {v}" for k, v in skipped.items()), file=sys.stderr)
        return 0
    for name, reason in skipped.items():
        print(f"segmented_torch.py: {name} skipped: {reason}", file=sys.stderr)
    args.l2_bytes = l2_bytes(libs)
    rows: List[dict] = []
    for shape in shapes(args.elements):
        rows.extend(bench_shape(libs, shape, args))
    device = device_name(libs)
    now = datetime.datetime.now(datetime.timezone.utc)
    result = {
        "meta": {"command": "bench/segmented_torch.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                 "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": helpers.commit(), "device": device,
                 "versions": helpers.versions(), "rounds": args.rounds, "warmup": args.warmup,
                 "log2_elements": args.elements, "l2_bytes": args.l2_bytes, "series_turn": helpers.SERIES_TURN},
        "notes": ["median_us etc.: CUDA events around one call, from an idle GPU, timed as python -m warpfold.bench "
                  "and the C++ bench time (balanced orders; past half the L2, turns after an untimed call)",
                  "gbps: (input elements + outputs) * 4 bytes over the median time, as the C++ bench counts",
                  "check: against a float64 sum within len * 2^-24 * sum|x|"],
        "rows": rows, "skipped": skipped,
    }
    path = args.out or os.path.join(ROOT, "bench", "results",
                                    f"segmented-python-{helpers.gpu_tag(device)}-{now.strftime('%Y-%m-%d')}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(summary_lines(result)))
    print(f"JSON: {path}")
    return 0 if all(row["check"] == "ok" for row in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
