#!/usr/bin/env python3
"""Compares the timed rows of lesson runs (`warpfold LESSON --format json`) between two builds,
with repeated runs of each so that the spread between runs of one build sets the noise.

  scripts/lesson_compare.py --before B1.json B2.json --after A1.json A2.json

Rows are matched by their naming columns (kernel, variant, block, condition); rows only one build
has are listed apart. For each timed column it prints the after/before ratio of the medians over
the runs, and the widest ratio between two runs of the same build (the A/A spread). A row is
"within noise" when its before/after ratio lies inside the A/A spread of either build."""
import argparse
import json
import statistics
import sys

KEYS = ("kernel", "variant", "block", "condition", "build")
TIMES = ("median_ms", "best_ms", "o3_median_ms", "g_median_ms", "divergent_ms", "uniform_ms")


def rows(path):
    """{(table index, key): {time column: value}} for every row with a positive time."""
    try:
        with open(path) as f:
            tables = json.load(f)["tables"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"lesson_compare: {path} is not a lesson's JSON output (`warpfold LESSON --format json`): {e}")
    out = {}
    for i, table in enumerate(tables):
        for r in table["rows"]:
            key = (i,) + tuple(str(r.get(k, "")) for k in KEYS)
            times = {c: float(r[c]) for c in TIMES if isinstance(r.get(c), (int, float)) and r[c] > 0}
            if times:
                out[key] = times
    return out


def spread(runs, key, col):
    """The largest ratio between two runs of one build (>= 1), or None with fewer than two."""
    vals = [r[key][col] for r in runs if key in r and col in r[key]]
    return max(vals) / min(vals) if len(vals) >= 2 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    args = ap.parse_args()
    before, after = [rows(p) for p in args.before], [rows(p) for p in args.after]
    keys_b, keys_a = set().union(*before), set().union(*after)
    counts = {"within noise": 0, "APART": 0}
    for key in sorted(keys_b & keys_a):
        for col in TIMES:
            b = [r[key][col] for r in before if key in r and col in r[key]]
            a = [r[key][col] for r in after if key in r and col in r[key]]
            if not b or not a:
                continue
            ratio = statistics.median(a) / statistics.median(b)
            noise = max(s for s in (spread(before, key, col), spread(after, key, col), 1.0) if s)
            verdict = "within noise" if 1 / noise <= ratio <= noise else "APART"
            counts[verdict] += 1
            name = " ".join(k for k in key[1:] if k)
            print(f"{name:48s} {col:13s} before {statistics.median(b):9.4f}  after {statistics.median(a):9.4f}"
                  f"  after/before {ratio:6.3f}  A/A spread {noise:6.3f}  {verdict}")
    for label, keys in (("only before", keys_b - keys_a), ("only after", keys_a - keys_b)):
        for key in sorted(keys):
            print(f"{label}: {' '.join(k for k in key[1:] if k)}")
    print(f"total: {counts['within noise']} within noise, {counts['APART']} apart")


if __name__ == "__main__":
    main()
