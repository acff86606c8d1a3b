#!/usr/bin/env python3
"""Prints a compact view of a `warpfold bench --format json` file: per type and operator, the
warpfold and CUB medians, their ratio, and warpfold's bandwidth, with the targets checked."""
import json
import sys


def main(path):
    doc = json.load(open(path))
    meta = doc["meta"]
    floor = meta.get("launch_floor_us", float("nan"))
    device = meta.get("device") or {}
    print(f"device {device.get('name')} (driver {device.get('driver_release') or '?'}, "
          f"CUDA {device.get('runtime')}) floor {floor:.2f} us, "
          f"peak read {meta.get('peak_read_gbps', 0):.0f} GB/s, commit {meta.get('commit')}, {meta.get('date')}")
    rows = doc["tables"][0]["rows"]
    by = {}
    for r in rows:
        by.setdefault((r["type"], r["op"], r["n"]), {})[r["library"]] = r
    worst = {}
    for (t, op, n), libs in sorted(by.items()):
        wf, cub = libs.get("warpfold"), libs.get("cub")
        if not wf or not cub:
            continue
        ratio = wf["ratio_vs_cub"]
        print(f"{t:6} {op} 2^{wf['log2_n']:<2} wf {wf['median_us']:9.2f} us  cub {cub['median_us']:9.2f} us  "
              f"ratio {ratio:5.3f}  x_floor {wf['x_launch_floor']:5.2f}  {wf['gbps']:7.0f} GB/s "
              f"{wf['pct_theoretical_peak']:5.1f}% theor  thrust {libs['thrust']['median_us']:9.2f}  {wf['check']}"
              + (f"  any_order {any_order['median_us']:7.2f} us ratio {any_order['ratio_vs_cub']:5.3f} {any_order['check']}"
                 if (any_order := libs.get("warpfold any_order")) else ""))
        worst[(t, op)] = min(worst.get((t, op), 9e9), ratio)
    for k, v in worst.items():
        print("worst ratio", k, f"{v:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
