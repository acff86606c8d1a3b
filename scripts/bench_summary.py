#!/usr/bin/env python3
"""Prints a compact view of a `warpfold bench --format json` file: per type, operator and size, the
warpfold, CUB and no-combine medians, warpfold's per-round ratio to CUB with its 95% interval and
the verdict of the "at least 1.0x" standard, the ceiling (CUB over the no-combine read: the most a
reduce reading the data that way could reach in the run), and then the targets checked row by row
(docs/design.md#where-the-targets-stand).

With --against OTHER.json, compares the two runs row by row instead: warpfold's ratio to CUB in
each, and whether their intervals overlap (within noise) or not. The two runs are two processes,
so each is judged against its own CUB, timed in its own rounds."""
import argparse
import json

RATIO_TARGET = 1.4   # ratio to CUB where CUB launches two kernels
FLOOR_TARGET = 1.3   # time as a multiple of the launch floor there
BANDWIDTH_TARGETS = {28: 92.0, 30: 93.0}  # % of the theoretical bandwidth
NARROW_TARGET = 95.0  # % of the measured DRAM peak with 1 GiB of input, every type
GIB = 1 << 30


def two_kernel_sizes(t, log2_n):
    """2^12..2^20 where CUB launches two kernels: from 2^12 for doubles, 2^13 for 4-byte types."""
    return (12 if t == "double" else 13) <= log2_n <= 20


def load(path):
    doc = json.load(open(path))
    by = {}
    for r in doc["tables"][0]["rows"]:
        by.setdefault((r["type"], r["op"], r["n"]), {})[r["library"]] = r
    return doc["meta"], by


def header(meta):
    floor = meta.get("launch_floor_us", float("nan"))
    driver_floor = meta.get("launch_floor_driver_us")
    device = meta.get("device") or {}
    lines = [f"device {device.get('name')} (driver {device.get('driver_release') or '?'}, "
             f"CUDA {device.get('runtime')}) floor {floor:.2f} us"
             + (f" (as warpfold launches: {driver_floor:.2f} us)" if driver_floor is not None else "") + ", "
             f"DRAM peak {meta.get('peak_read_gbps', 0):.0f} GB/s ({meta.get('peak_source', 'streaming probe')}; "
             f"probe {meta.get('peak_probe_gbps', meta.get('peak_read_gbps', 0)):.0f}), "
             f"L2 {meta.get('peak_l2_read_gbps', 0):.0f} GB/s, commit {meta.get('commit')}, {meta.get('date')}"]
    if (p := meta.get("policy")):
        lines.append("policy: " + ", ".join(f"{k} {v}" for k, v in p.items()))
    return "\n".join(lines)


def interval(row):
    lo, hi = row.get("ratio_vs_cub_low"), row.get("ratio_vs_cub_high")
    return f"{row['ratio_vs_cub']:5.3f} [{lo:5.3f}, {hi:5.3f}]" if lo is not None else f"{row['ratio_vs_cub']:5.3f}"


def summary(path):
    meta, by = load(path)
    print(header(meta))
    worst = {}
    misses = {"a": [], "b-ratio": [], "b-floor": [], "c": [], "narrow": []}
    for (t, op, n), libs in sorted(by.items()):
        wf, cub, nc = libs.get("warpfold"), libs.get("cub"), libs.get("no combine")
        if not wf or not cub:
            continue
        k = wf["log2_n"]
        ratio = wf["ratio_vs_cub"]
        line = (f"{t:6} {op} 2^{k:<2} wf {wf['median_us']:9.2f} us  cub {cub['median_us']:9.2f} us  "
                f"ratio {interval(wf)} {wf.get('at_least_cub') or '':3}  x_floor {wf['x_launch_floor']:5.2f}  "
                f"{wf['gbps']:7.0f} GB/s {wf['pct_measured_peak']:5.1f}% {wf.get('peak_basis', '')} "
                f"{wf['pct_theoretical_peak']:5.1f}% theor  thrust {libs['thrust']['median_us']:9.2f}  {wf['check']}")
        if nc:
            line += (f"  no_combine {nc['median_us']:9.2f} us x_floor {nc['x_launch_floor']:5.2f} "
                     f"ceiling {nc['ratio_vs_cub']:5.3f} {nc['check']}")
        # warpfold timed again in the same rounds: the gauge of the run's noise (records made before
        # 0.2.0 call it "warpfold any_order").
        if (again := libs.get("warpfold (again)") or libs.get("warpfold any_order")):
            line += f"  again {again['median_us']:7.2f} us ratio {interval(again)} {again['check']}"
        if (repro := libs.get("warpfold reproducible")):
            line += f"  reproducible {repro['median_us']:9.2f} us {repro['gbps'] / wf['gbps']:5.3f} of warpfold's GB/s {repro['check']}"
        print(line)
        worst[(t, op)] = min(worst.get((t, op), 9e9), ratio)
        name = f"{t} {op} 2^{k}"
        if wf.get("at_least_cub", "yes" if ratio >= 1.0 else "NO") != "yes":
            misses["a"].append(f"{name}: ratio {interval(wf)}")
        if two_kernel_sizes(t, k):
            if ratio < RATIO_TARGET:
                note = f", ceiling {nc['ratio_vs_cub']:.3f}" if nc else ""
                misses["b-ratio"].append(f"{name}: ratio {ratio:.3f}{note}")
            if wf["x_launch_floor"] > FLOOR_TARGET:
                note = f", no combine {nc['x_launch_floor']:.2f}" if nc else ""
                misses["b-floor"].append(f"{name}: x floor {wf['x_launch_floor']:.2f}{note}")
        if k in BANDWIDTH_TARGETS and wf["pct_theoretical_peak"] < BANDWIDTH_TARGETS[k]:
            misses["c"].append(f"{name}: {wf['pct_theoretical_peak']:.1f}% < {BANDWIDTH_TARGETS[k]}%")
        if n * {"int8": 1, "half": 2, "int32": 4, "float": 4, "double": 8}.get(t, 0) == GIB:
            if wf["pct_measured_peak"] < NARROW_TARGET:
                misses["narrow"].append(f"{name}: {wf['pct_measured_peak']:.1f}% of the measured peak")
    for key, value in worst.items():
        print("worst ratio", key, f"{value:.3f}")
    labels = {"a": "at least 1.0x CUB at every n (median >= 1, or both at the memory limit and low end >= 0.99)",
              "b-ratio": f"ratio >= {RATIO_TARGET} where CUB launches two kernels",
              "b-floor": f"time <= {FLOOR_TARGET}x the launch floor there",
              "c": "bandwidth at 2^28 and 2^30 (% of theoretical)",
              "narrow": f"every type >= {NARROW_TARGET}% of the measured DRAM peak with 1 GiB of input"}
    for key, label in labels.items():
        found = misses[key]
        print(f"target {label}: " + ("met" if not found else f"missed at {len(found)}: " + "; ".join(found)))


def compare(path_a, path_b):
    meta_a, a = load(path_a)
    meta_b, b = load(path_b)
    print("A:", header(meta_a))
    print("B:", header(meta_b))
    apart = 0
    rows = 0
    for key in sorted(set(a) & set(b)):
        wa, wb = a[key].get("warpfold"), b[key].get("warpfold")
        if not wa or not wb or wa.get("ratio_vs_cub_low") is None or wb.get("ratio_vs_cub_low") is None:
            continue
        rows += 1
        overlap = wa["ratio_vs_cub_low"] <= wb["ratio_vs_cub_high"] and wb["ratio_vs_cub_low"] <= wa["ratio_vs_cub_high"]
        apart += not overlap
        t, op, n = key
        print(f"{t:6} {op} 2^{wa['log2_n']:<2} A {interval(wa)}  B {interval(wb)}  "
              f"{'within noise' if overlap else 'APART: ' + ('B faster' if wb['ratio_vs_cub'] > wa['ratio_vs_cub'] else 'B slower')}")
    print(f"{rows - apart} of {rows} rows within noise (their vs-CUB intervals overlap); {apart} apart")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json")
    parser.add_argument("--against", help="a second bench JSON: compare the two runs row by row")
    args = parser.parse_args()
    if args.against:
        compare(args.against, args.bench_json)
    else:
        summary(args.bench_json)


if __name__ == "__main__":
    main()
