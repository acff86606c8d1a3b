#!/usr/bin/env python3
"""Prints a compact view of a `warpfold bench --format json` file: per type, operator and size, the
warpfold, CUB and no-combine medians, warpfold's ratio to CUB and the ceiling (CUB over the
no-combine read: the most a reduce reading the data that way could reach in the run), and
warpfold's second row (the gauge of the run's noise); then
the bench targets (bench/NOTES.md, "Where the targets stand") checked row by row, each miss with
what the no-combine read says of it."""
import json
import sys

RATIO_TARGET = 1.4   # (b): ratio to CUB where CUB launches two kernels
FLOOR_TARGET = 1.3   # (b): time as a multiple of the launch floor there
BANDWIDTH_TARGETS = {28: 92.0, 30: 93.0}  # (c): % of the theoretical bandwidth


def two_kernel_sizes(t, log2_n):
    """2^12..2^20 where CUB launches two kernels: from 2^12 for doubles, 2^13 for 4-byte types."""
    return (12 if t == "double" else 13) <= log2_n <= 20


def main(path):
    doc = json.load(open(path))
    meta = doc["meta"]
    floor = meta.get("launch_floor_us", float("nan"))
    driver_floor = meta.get("launch_floor_driver_us")
    device = meta.get("device") or {}
    print(f"device {device.get('name')} (driver {device.get('driver_release') or '?'}, "
          f"CUDA {device.get('runtime')}) floor {floor:.2f} us"
          + (f" (as warpfold launches: {driver_floor:.2f} us)" if driver_floor is not None else "") + ", "
          f"peak read {meta.get('peak_read_gbps', 0):.0f} GB/s, commit {meta.get('commit')}, {meta.get('date')}")
    rows = doc["tables"][0]["rows"]
    by = {}
    for r in rows:
        by.setdefault((r["type"], r["op"], r["n"]), {})[r["library"]] = r
    worst = {}
    misses = {"a": [], "b-ratio": [], "b-floor": [], "c": []}
    # The floor target against the empty kernel launched as warpfold launches (records made before
    # that column existed have none): not the target's definition, a stricter view of it.
    driver_floor_rows = []
    for (t, op, n), libs in sorted(by.items()):
        wf, cub, nc = libs.get("warpfold"), libs.get("cub"), libs.get("no combine")
        if not wf or not cub:
            continue
        k = wf["log2_n"]
        ratio = wf["ratio_vs_cub"]
        line = (f"{t:6} {op} 2^{k:<2} wf {wf['median_us']:9.2f} us  cub {cub['median_us']:9.2f} us  "
                f"ratio {ratio:5.3f}  x_floor {wf['x_launch_floor']:5.2f}  {wf['gbps']:7.0f} GB/s "
                f"{wf['pct_theoretical_peak']:5.1f}% theor  thrust {libs['thrust']['median_us']:9.2f}  {wf['check']}")
        if nc:
            line += (f"  no_combine {nc['median_us']:9.2f} us x_floor {nc['x_launch_floor']:5.2f} "
                     f"ceiling {nc['ratio_vs_cub']:5.3f} {nc['check']}")
        # warpfold timed again in the same rounds: the gauge of the run's noise (records made before
        # 0.2.0 call it "warpfold any_order", and have it for float and double sums only).
        if (again := libs.get("warpfold (again)") or libs.get("warpfold any_order")):
            line += f"  again {again['median_us']:7.2f} us ratio {again['ratio_vs_cub']:5.3f} {again['check']}"
        print(line)
        worst[(t, op)] = min(worst.get((t, op), 9e9), ratio)
        name = f"{t} {op} 2^{k}"
        if ratio < 1.0:
            misses["a"].append(f"{name}: ratio {ratio:.3f}")
        if two_kernel_sizes(t, k):
            if ratio < RATIO_TARGET:
                note = f", ceiling {nc['ratio_vs_cub']:.3f}" if nc else ""
                misses["b-ratio"].append(f"{name}: ratio {ratio:.3f}{note}")
            if "x_driver_floor" in wf:
                driver_floor_rows.append(wf["x_driver_floor"] <= FLOOR_TARGET)
            if wf["x_launch_floor"] > FLOOR_TARGET:
                note = f", no combine {nc['x_launch_floor']:.2f}" if nc else ""
                misses["b-floor"].append(f"{name}: x floor {wf['x_launch_floor']:.2f}{note}")
        if k in BANDWIDTH_TARGETS and wf["pct_theoretical_peak"] < BANDWIDTH_TARGETS[k]:
            misses["c"].append(f"{name}: {wf['pct_theoretical_peak']:.1f}% < {BANDWIDTH_TARGETS[k]}%")
    for key, value in worst.items():
        print("worst ratio", key, f"{value:.3f}")
    labels = {"a": "(a) ratio >= 1.00 at every n",
              "b-ratio": f"(b) ratio >= {RATIO_TARGET} where CUB launches two kernels",
              "b-floor": f"(b) time <= {FLOOR_TARGET}x the launch floor there",
              "c": "(c) bandwidth at 2^28 and 2^30"}
    for key, label in labels.items():
        found = misses[key]
        print(f"target {label}: " + ("met" if not found else f"missed at {len(found)}: " + "; ".join(found)))
    if driver_floor_rows:
        print(f"against the empty kernel launched as warpfold launches: {sum(driver_floor_rows)} of "
              f"{len(driver_floor_rows)} rows within {FLOOR_TARGET}x")


if __name__ == "__main__":
    main(sys.argv[1])
