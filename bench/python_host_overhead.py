#!/usr/bin/env python3
"""Host time per call of small sums from Python: warpfold.sum against torch.sum and cupy.sum.

A small reduce is bound by the host: its time is the way from the call to the launch, not the
GPU's work. Per case (2^10 float32, int32 and float16 elements whole; float32 and int32 along
dim=1 of 32 x 32), each call is issued N times back to back without waiting for the GPU; its host
time per call is the wall time over N, the median of 5 repeats after a warm-up, the order of the
calls rotated per repeat (warpfold.bench.host_time_per_call). warpfold is timed on a torch tensor
and on a cupy array, each by its fast path and by the general one (the fast path switched off for
the array's type, in the same process). Then the parts of warpfold's call alone (the framework
calls it makes, the extension's launch), and a cProfile of N warpfold.sum calls (the top 25 by
cumulative time), whole and along dim=1.

Skips with a message (exit 0) where torch or a CUDA device is missing; without cupy its rows are
left out. Writes python-host-overhead.json into --out.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence

# (dtype, dim): 2^10 elements whole, or 32 x 32 along dim
CASES = (("float32", None), ("int32", None), ("float16", None), ("float32", 1), ("int32", 1))


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000, help="calls per repeat (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="repeats, of which the median (default: %(default)s)")
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the JSON (default: $OUT or .)")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.repeats < 1:
        parser.error("--calls and --repeats must be at least 1")
    return args


def skip(reason: str) -> int:
    print(f"python_host_overhead: skipped ({reason})")
    return 0


def case_name(dtype: str, dim: Optional[int]) -> str:
    return f"{dtype} 2^10" if dim is None else f"{dtype} 32x32 dim={dim}"


def calls_of(torch, cupy, warpfold, bench, dtype: str, dim: Optional[int]) -> List:
    """The contenders of one case on one random input (cupy sees the tensor without a copy), each
    called once and checked against torch.sum."""
    x = bench.make_input(torch, dtype, 1024)
    if dim is not None:
        x = x.reshape(32, 32)
    kw = {} if dim is None else {"dim": dim}
    found = [bench.Contender("warpfold(torch)", lambda: warpfold.sum(x, **kw)),
             bench.Contender("torch.sum", lambda: torch.sum(x, **kw))]
    if cupy is not None:
        xc, axis = cupy.from_dlpack(x), {} if dim is None else {"axis": dim}
        found += [bench.Contender("warpfold(cupy)", lambda: warpfold.sum(xc, **kw)),
                  bench.Contender("cupy.sum", lambda: cupy.sum(xc, **axis))]
    expected = torch.sum(x, **kw).double()
    # A sum returned in float16 is rounded to its 11 bits, where each library's order of additions
    # may land on a neighbouring value: a few units in the last place.
    rtol = max(1e-5, 8 * torch.finfo(x.dtype).eps) if x.dtype.is_floating_point else 1e-5
    for contender in found:
        got = torch.as_tensor(contender.call(), device=x.device).double()
        if not torch.allclose(got, expected, rtol=rtol, atol=1e-5):
            raise SystemExit(f"python_host_overhead: {contender.name} of {case_name(dtype, dim)} disagrees with "
                             "torch.sum")
    return found


def host_rows(torch, cupy, warpfold, bench, calls: int, repeats: int) -> List[dict]:
    """Per case, each contender's host µs per call; then warpfold's again by the general path."""
    rows = []
    for dtype, dim in CASES:
        found = calls_of(torch, cupy, warpfold, bench, dtype, dim)
        per_call = bench.host_time_per_call(torch, found, calls, repeats)
        ours = [c for c in found if c.name.startswith("warpfold")]
        with general_path(warpfold, torch, cupy) as switched:
            if switched:
                per_call.update({name.replace("(", "(general, "): us for name, us in
                                 bench.host_time_per_call(torch, ours, calls, repeats).items()})
        rows += [{"case": case_name(dtype, dim), "library": name, "host_us_per_call": us}
                 for name, us in per_call.items()]
    return rows


@contextlib.contextmanager
def general_path(warpfold, torch, cupy):
    """The fast path switched off for torch and cupy arrays inside (warpfold._fast.FAST); yields
    False for a package without one."""
    fast = getattr(getattr(warpfold, "_fast", None), "FAST", None)
    if fast is None:
        yield False
        return
    types_ = [torch.Tensor] + ([cupy.ndarray] if cupy is not None else [])
    kept = {t: fast.pop(t, None) for t in types_}
    fast.update({t: False for t in types_})
    try:
        yield True
    finally:
        for t, calls in kept.items():
            fast.pop(t, None)
            if calls is not None:
                fast[t] = calls


def part_rows(torch, warpfold, bench, calls: int, repeats: int) -> Dict[str, float]:
    """Host µs per call of what warpfold.sum of 2^10 float32 (a torch tensor) does, one part at a
    time: the tensor's attributes, the current device and stream, the result's allocation, the temp
    storage's, the extension's launch alone (into buffers allocated once)."""
    from warpfold import _core
    from warpfold import _warpfold as ext

    x = bench.make_input(torch, "float32", 1024)
    device = x.get_device()
    where = torch.device("cuda", device)
    plan = _core.plan("sum", "float32", "torch", None)
    nbytes = _core.temp_bytes(plan.index, device)
    out, temp = torch.empty((), dtype=torch.float32, device=where), torch.empty(nbytes, dtype=torch.uint8, device=where)
    C = torch._C
    stream = C._cuda_getCurrentRawStream(device)
    n, data, out_ptr, temp_ptr = x.numel(), x.data_ptr(), out.data_ptr(), temp.data_ptr()
    parts = [
        ("a Python call doing nothing", lambda: None),
        ("x.is_cuda, is_contiguous(), get_device(), dtype, numel(), data_ptr()",
         lambda: (x.is_cuda, x.is_contiguous(), x.get_device(), x.dtype, x.numel(), x.data_ptr())),
        ("torch._C._cuda_getDevice() and _cuda_getCurrentRawStream(d)",
         lambda: (C._cuda_getDevice(), C._cuda_getCurrentRawStream(device))),
        ("torch.empty((), dtype=, device=) and data_ptr()",
         lambda: torch.empty((), dtype=torch.float32, device=where).data_ptr()),
        ("x.new_empty(()) and data_ptr()", lambda: x.new_empty(()).data_ptr()),
        ("x.new_empty((), dtype=) and data_ptr()", lambda: x.new_empty((), dtype=torch.float32).data_ptr()),
        (f"raw_alloc({nbytes}, stream) and raw_delete",
         lambda: C._cuda_cudaCachingAllocator_raw_delete(C._cuda_cudaCachingAllocator_raw_alloc(nbytes, stream))),
        ("_warpfold.run (the launch)", lambda: ext.run(plan.index, device, data, n, out_ptr, temp_ptr, nbytes, stream)),
        ("warpfold.sum(x)", lambda: warpfold.sum(x)),
        ("torch.sum(x)", lambda: torch.sum(x)),
    ]
    found = [bench.Contender(name, call) for name, call in parts]
    return bench.host_time_per_call(torch, found, calls, repeats)


def profile_text(call: Callable[[], object], calls: int, top: int = 25) -> str:
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(calls):
        call()
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(top)
    return text.getvalue()


def table(rows: List[dict], parts: Dict[str, float]) -> List[str]:
    libraries = list(dict.fromkeys(r["library"] for r in rows))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    value = {(r["case"], r["library"]): r["host_us_per_call"] for r in rows}
    width = max(len(name) for name in libraries) + 1
    lines = ["host µs per call, back to back (median of the repeats):",
             f"{'case':22}" + "".join(f"{name:>{width}}" for name in libraries)]
    for case in cases:
        cells = [value.get((case, name)) for name in libraries]
        lines.append(f"{case:22}" + "".join(f"{c:>{width}.2f}" if c is not None else f"{'-':>{width}}" for c in cells))
    lines.append("the parts of warpfold.sum of 2^10 float32 on a torch tensor, host µs per call:")
    lines += [f"  {us:7.2f}  {name}" for name, us in parts.items()]
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        import torch
    except ImportError as error:
        return skip(f"torch is not importable: {error}")
    if not torch.cuda.is_available():
        return skip("torch sees no CUDA device")
    try:
        import warpfold
        from warpfold import bench
    except ImportError as error:
        print(f"python_host_overhead: warpfold is not importable ({error}): install the package first", file=sys.stderr)
        return 2
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 (any failure leaves cupy out, with the reason)
        print(f"python_host_overhead: cupy left out ({type(error).__name__}: {error})".splitlines()[0])
        cupy = None

    rows = host_rows(torch, cupy, warpfold, bench, args.calls, args.repeats)
    parts = part_rows(torch, warpfold, bench, args.calls, args.repeats)
    x = bench.make_input(torch, "float32", 1024)
    m = x.reshape(32, 32)
    profiles = {"warpfold.sum(x), 2^10 float32": profile_text(lambda: warpfold.sum(x), args.calls),
                "warpfold.sum(x, dim=1), 32x32 float32": profile_text(lambda: warpfold.sum(m, dim=1), args.calls)}
    torch.cuda.synchronize()
    for name, text in profiles.items():
        print(f"cProfile of {args.calls} calls of {name}, top 25 by cumulative time:")
        print(text.strip() + "\n")
    print("\n".join(table(rows, parts)))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "python-host-overhead.json")
    with open(path, "w") as f:
        json.dump({"meta": {"device": torch.cuda.get_device_name(), "commit": bench.commit(),
                            "versions": bench.versions(), "calls": args.calls, "repeats": args.repeats,
                            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
                   "rows": rows, "parts_us": parts, "profiles": profiles}, f, indent=1)
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
