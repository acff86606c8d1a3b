#!/usr/bin/env python3
"""Prints a compact view of `warpfold bench --segmented --axis --format json` and, given with
--python, bench/segmented_torch.py's JSON of the same run: per shape, warpfold's time, its share
of the roofline probe, its per-round ratio to CUB with the 95% interval, torch's and cupy's time
over warpfold's, and the check; then the issue's targets, row by row (at least 90% of the
roofline, at least 1.0x CUB, torch and cupy, the 1000 x 64 batch within 1.3x the launch floor, a
strided view no slower than copying it and reducing the copy).

torch and cupy run in another process than warpfold: their ratios are of medians, not per round."""
import argparse
import json

ROOFLINE_TARGET = 90.0  # % of the roofline probe (1.11x its time)
FLOOR_TARGET = 1.3      # the batch's time over the empty kernel's


def load_rows(path):
    doc = json.load(open(path))
    tables = doc.get("tables")
    rows = (tables[0]["rows"] if tables else []) if tables is not None else doc["rows"]
    return doc.get("meta", {}), rows


def framework_times(path):
    """{(shape, library): median_us} from the Python script's JSON (empty without it)."""
    if not path:
        return {}
    _, rows = load_rows(path)
    return {(r["shape"], r["library"]): r["median_us"] for r in rows}


def interval(row):
    if row.get("ratio_vs_cub") is None:
        return "      -             "
    return f"{row['ratio_vs_cub']:5.3f} [{row['ratio_vs_cub_low']:5.3f}, {row['ratio_vs_cub_high']:5.3f}]"


def summary(path, python_path):
    meta, rows = load_rows(path)
    frameworks = framework_times(python_path)
    print(f"device {(meta.get('device') or {}).get('name')}, commit {meta.get('commit')}, {meta.get('date')}, "
          f"DRAM peak {meta.get('peak_read_gbps', 0):.0f} GB/s")
    if not rows:
        print(f"{path}: no rows ({meta.get('no_device_reason', 'no GPU run')})")
        return
    misses = {"roofline": [], "cub": [], "frameworks": [], "floor": [], "copy": [], "check": []}
    for row in rows:
        if row["library"] != "warpfold":
            if row["check"] not in ("ok", "probe"):
                misses["check"].append(f"{row['kind']} {row['shape']} {row['library']}: {row['check']}")
            continue
        name = f"{row['kind']:9} {row['shape']}"
        line = (f"{name:50} {row['median_us']:10.2f} us {row['gbps']:7.0f} GB/s {row['pct_roofline']:5.1f}% roof "
                f"vs CUB {interval(row)}")
        for lib in ("torch", "cupy"):
            theirs = frameworks.get((row["shape"], lib)) if row["kind"] == "axis" else None
            if theirs is not None:
                line += f"  {lib} {theirs / row['median_us']:5.2f}x"
                if theirs < row["median_us"]:
                    misses["frameworks"].append(f"{name} vs {lib}: {theirs / row['median_us']:.3f}")
        if row.get("ratio_vs_copy") is not None:
            line += f"  vs copy {row['ratio_vs_copy']:5.3f}"
            if row["ratio_vs_copy"] < 1.0:
                misses["copy"].append(f"{name}: {row['ratio_vs_copy']:.3f}")
        if row.get("x_driver_floor") is not None:
            line += f"  x floor {row['x_driver_floor']:.2f}"
            if row["x_driver_floor"] > FLOOR_TARGET:
                misses["floor"].append(f"{name}: {row['x_driver_floor']:.2f}")
        print(line + f"  {row['check']}")
        if row["check"] != "ok":
            misses["check"].append(f"{name}: {row['check']}")
        if row["pct_roofline"] < ROOFLINE_TARGET and row.get("ratio_vs_copy") is None:  # contiguous rows only
            misses["roofline"].append(f"{name}: {row['pct_roofline']:.1f}%")
        if row.get("ratio_vs_cub") is not None and row["ratio_vs_cub"] < 1.0:
            misses["cub"].append(f"{name}: {interval(row)}")
    print(f"targets: below {ROOFLINE_TARGET:.0f}% of the roofline: " + ("; ".join(misses["roofline"]) or "none"))
    print("slower than CUB (median per-round ratio < 1): " + ("; ".join(misses["cub"]) or "none"))
    if frameworks:
        print("slower than torch or cupy (medians): " + ("; ".join(misses["frameworks"]) or "none"))
    print(f"batch above {FLOOR_TARGET}x the launch floor: " + ("; ".join(misses["floor"]) or "none"))
    print("strided views slower than copy + reduce: " + ("; ".join(misses["copy"]) or "none"))
    print("wrong results: " + ("; ".join(misses["check"]) or "none"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench_json")
    parser.add_argument("--python", help="bench/segmented_torch.py's JSON of the same run")
    args = parser.parse_args()
    summary(args.bench_json, args.python)
