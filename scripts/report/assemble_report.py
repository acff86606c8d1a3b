#!/usr/bin/env python3
"""Assembles `warpfold report`'s results.json into report.md, report.html and figures/*.png.

    assemble_report.py RESULTS_JSON OUT_DIR [--no-plots]

Each lesson becomes a section: its status, its figures (matplotlib) and its tables (the Markdown
the lesson rendered itself, or a summary where SECTION_BODIES names one), with a link to its CSV;
the sections of PROFILE_VIEWS add their metrics from their lesson's profiled section. A lesson
that failed gets a section saying so; the others are unaffected. Exit status 0 on success, 2 on unreadable input.
"""
import argparse
import html
import json
import math
import os
import sys


def rows(lesson, table_index=0):
    report = lesson.get("report") or {}
    tables = report.get("tables") or []
    return tables[table_index]["rows"] if len(tables) > table_index else []


def meta(lesson):
    return (lesson.get("report") or {}).get("meta") or {}


# --- figures: one function per lesson, each returns [(file name, caption)] ------------------

def log_y(ax):
    """Log-scaled y axis with readable tick labels at 1, 2 and 5 of every decade."""
    import matplotlib.ticker as ticker
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%.3g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def fig_ladder(plt, lesson, out):
    # The GPU rows: a book or fixed variant (the library's device-wide step has no grid of its own).
    gpu = [r for r in rows(lesson) if r.get("variant") in ("book", "fixed") and isinstance(r.get("median_ms"), (int, float))]
    if not gpu:
        return []
    kernels = list(dict.fromkeys(r["kernel"] for r in gpu))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    width = 0.4
    for k, variant in enumerate(["book", "fixed"]):
        vals = {r["kernel"]: r for r in gpu if r["variant"] == variant}
        xs = [i + (k - 0.5) * width for i in range(len(kernels))]
        ax1.bar(xs, [vals[n]["median_ms"] if n in vals else 0 for n in kernels], width, label=variant)
        ax2.bar(xs, [(vals[n].get("speedup") or 0) if n in vals else 0 for n in kernels], width, label=variant)
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels, rotation=40, ha="right", fontsize=8)
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    log_y(ax1)
    ax1.set_ylabel("median time (ms, log scale)")
    ax1.set_title("time per kernel")
    ax2.set_ylabel("speedup over reduceNeighbored (×)")
    ax2.set_title("speedup")
    m = meta(lesson)
    fig.suptitle(f"reduction ladder, n = {m.get('n')}, block {m.get('block')}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ladder.png"), dpi=110)
    plt.close(fig)
    return [("ladder.png", "Time and speedup of every step of the ladder, book and fixed variants")]


def fig_sweep(plt, lesson, out):
    table = rows(lesson, 1)
    if not table:
        return []
    # JSON objects carry no column order: put the block sizes in numeric order.
    blocks = sorted((k for k in table[0] if k.startswith("ms_block_")), key=lambda k: int(k.rsplit("_", 1)[1]))
    labels = [f"{r['kernel']} ({r['variant']})" for r in table]
    data = [[r.get(b) if isinstance(r.get(b), (int, float)) else math.nan for b in blocks] for r in table]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(table) + 1.6))
    im = ax.imshow(data, aspect="auto", cmap="viridis_r", norm=__import__("matplotlib").colors.LogNorm())
    ax.set_xticks(range(len(blocks)))
    ax.set_xticklabels([b.replace("ms_block_", "") for b in blocks])
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("threads per block")
    finite = sorted(v for row in data for v in row if not math.isnan(v))
    middle = finite[len(finite) // 2] if finite else 0
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            if not math.isnan(v):  # dark text on the bright (fast) cells, light on the dark ones
                ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=6,
                        color="black" if v < middle else "white")
    fig.colorbar(im, ax=ax, label="median time (ms, log scale)")
    ax.set_title("block-size sweep of the ladder (yellow is fastest)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep.png"), dpi=110)
    plt.close(fig)
    return [("sweep.png", "Median time of every kernel at every block size")]


def fig_divergence(plt, lesson, out):
    table = rows(lesson)
    if not table or not isinstance(table[0].get("o3_median_ms"), (int, float)):
        return []
    names = [r["kernel"] for r in table]
    fig, ax = plt.subplots(figsize=(10, 4.2))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [r["o3_median_ms"] for r in table], 0.4, label="-O3 (optimised)")
    ax.bar([x + 0.2 for x in xs], [r["g_median_ms"] for r in table], 0.4, label="-G (device debug)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    log_y(ax)
    ax.set_ylabel("median time (ms, log scale)")
    ax.set_title("warp divergence: the same kernels in two builds")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "divergence.png"), dpi=110)
    plt.close(fig)
    return [("divergence.png", "Divergence shows only where the branches are long (the lab's maskKernel pair)")]


def shape_gap(row):
    """Why a grid row has no bar ("invalid: threads per block 2048 > 1024"), or None where it has one."""
    if isinstance(row.get("gbps"), (int, float)):
        return None
    check = (row.get("check") or "not run").split(" (")[0]
    return check.replace("invalid configuration", "invalid")


def fig_grid(plt, lesson, out):
    """Every shape in the table's order: a bar for each one measured, a hatched gap labelled with
    the reason for each one that could not run (an invalid configuration), so none goes missing."""
    table = rows(lesson)
    if not any(isinstance(r.get("gbps"), (int, float)) for r in table):
        return []
    fig, ax = plt.subplots(figsize=(9, 4))
    peak = meta(lesson).get("peak_read_gbps")
    top = max([r["gbps"] for r in table if isinstance(r.get("gbps"), (int, float))] + [peak or 0])
    for i, r in enumerate(table):
        if isinstance(r.get("gbps"), (int, float)):
            ax.bar(i, r["gbps"], color="tab:orange" if r.get("best") == "best" else "tab:blue")
            continue
        ax.bar(i, top, color="none", edgecolor="gray", hatch="//", lw=0.8)
        ax.text(i, top / 2, shape_gap(r), rotation=90, ha="center",
                va="center", fontsize=8, color="dimgray", bbox={"facecolor": "white", "edgecolor": "none"})
    if peak:
        ax.axhline(peak, color="gray", ls="--", label=f"measured read peak {peak:.0f} GB/s")
        ax.legend()
    ax.set_xticks(range(len(table)))
    ax.set_xticklabels([r["block"] for r in table], rotation=40, ha="right")
    ax.set_xlabel("block shape (x × y)")
    ax.set_ylabel("effective bandwidth (GB/s)")
    ax.set_title("sumMatrixOnGPU2D by block shape (orange: best; hatched: could not run)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "grid.png"), dpi=110)
    plt.close(fig)
    return [("grid.png", "Bandwidth of the matrix sum for each block shape; a hatched gap is a shape this device "
             "cannot launch (the table's check column says which limit it breaks)")]


def fig_registers(plt, lesson, out):
    table = [r for r in rows(lesson) if isinstance(r.get("median_ms"), (int, float))]
    if not table:
        return []
    labels = [f"{r['kernel']}\n{r['limit']}" for r in table]
    fig, (occ, ms) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    occ.bar(labels, [r.get("occupancy_pct") or 0 for r in table],
            color=["tab:red" if (r.get("local_bytes") or 0) > 0 else "tab:blue" for r in table])
    for i, r in enumerate(table):
        occ.annotate(f"{r.get('registers')} regs", (i, r.get("occupancy_pct") or 0), ha="center", va="bottom",
                     fontsize=8)
    occ.set_ylabel("theoretical occupancy (%)")
    occ.set_ylim(0, 115)
    occ.set_title("register limits: occupancy (red: spills to local memory) and time")
    ms.bar(labels, [r["median_ms"] for r in table], color="tab:gray")
    ms.set_ylabel("median time (ms)")
    plt.setp(ms.get_xticklabels(), rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "registers.png"), dpi=110)
    plt.close(fig)
    return [("registers.png", "Occupancy, registers and time of each register limit")]


def fig_nested(plt, lesson, out):
    table = [r for r in rows(lesson) if isinstance(r.get("median_ms"), (int, float))]
    if not table:
        return []
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.bar([r["kernel"] for r in table], [r["median_ms"] for r in table], color="tab:purple")
    log_y(ax)
    ax.set_ylabel("median time (ms, log scale)")
    ax.set_title("nested reduction: child launches cost")
    for i, r in enumerate(table):
        ax.text(i, r["median_ms"], f"{r.get('child_launches') or 0} launches", ha="center", va="bottom", fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "nested.png"), dpi=110)
    plt.close(fig)
    return [("nested.png", "Time of each nested variant, with its device-side launches")]


BENCH_LIBRARIES = (("warpfold", "-o"), ("cub", "--s"), ("thrust", ":^"))


def row_bytes(r):
    """The bytes a bench row read: its bandwidth times its median time."""
    return r["gbps"] * r["median_us"] * 1e3


def l2_resident_n(table, l2_bytes):
    """The largest n whose input fits in half the L2 (the bench's test for an input that stays in L2
    between repetitions), or None."""
    fits = [r["n"] for r in table if l2_bytes and 2 * row_bytes(r) <= l2_bytes]
    return max(fits) if fits else None


def bench_timing_text(m):
    """How the bench timed its points with respect to the L2, from its meta."""
    l2 = (m.get("device") or {}).get("l2_bytes")
    l2_basis = " (shaded: L2-resident; its % of peak is taken against the L2 read figure)" if m.get("peak_l2_read_gbps") \
        else " (shaded: L2-resident)"
    if m.get("cold"):
        return "Timed with a cold L2 (--cold: the L2 is flushed, untimed, before every repetition), so every point reads DRAM"
    half = f" ({l2 / 2 / 2**20:.0f} MiB here)" if l2 else ""
    return ("Timed with a warm L2 (the default, no flush between repetitions): an input of at most half the L2"
            f"{half} stays in L2 from one repetition to the next, so its GB/s can exceed the DRAM peak{l2_basis}; "
            "`warpfold bench --cold` flushes the L2 before every repetition")


def fig_bench(plt, lesson, out):
    """One bandwidth panel per type and operation, with the peaks and the L2-resident sizes shaded,
    and below them one panel of warpfold's ratio to CUB at every size, where the small sizes (a few
    GB/s, invisible on the bandwidth axes) show."""
    table = [r for r in rows(lesson) if r.get("library") in dict(BENCH_LIBRARIES)
             and isinstance(r.get("gbps"), (int, float)) and isinstance(r.get("median_us"), (int, float))]
    if not table:
        return []
    m = meta(lesson)
    peak = m.get("peak_read_gbps")
    theoretical = (m.get("device") or {}).get("theoretical_gbps")
    l2_bytes = (m.get("device") or {}).get("l2_bytes")
    cases = list(dict.fromkeys((r["type"], r["op"]) for r in table))
    cols = min(3, len(cases))
    nrows = math.ceil(len(cases) / cols)
    fig = plt.figure(figsize=(5 * cols, 3.8 * nrows + 4.2))
    grid = fig.add_gridspec(nrows + 1, cols, height_ratios=[3.8] * nrows + [4.2])
    for k, (t, op) in enumerate(cases):
        ax = fig.add_subplot(grid[k // cols, k % cols])
        case = [r for r in table if r["type"] == t and r["op"] == op]
        for lib, style in BENCH_LIBRARIES:
            pts = sorted((r["n"], r["gbps"]) for r in case if r["library"] == lib)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, ms=3, label=lib)
        in_l2 = None if m.get("cold") else l2_resident_n(case, l2_bytes)
        if in_l2:
            ax.axvspan(min(r["n"] for r in case), in_l2, color="gold", alpha=0.15, label="L2-resident")
        if peak:
            ax.axhline(peak, color="gray", ls="--", lw=1, label="measured DRAM peak")
        if theoretical:
            ax.axhline(theoretical, color="black", ls="-.", lw=1, label="theoretical peak")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements, log scale)")
        ax.set_ylabel("effective bandwidth (GB/s)")
        ax.set_title(f"{t} {op}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ratio = fig.add_subplot(grid[nrows, :])
    for t, op in cases:
        pts = sorted((r["n"], r["ratio_vs_cub"]) for r in table if r["type"] == t and r["op"] == op
                     and r["library"] == "warpfold" and isinstance(r.get("ratio_vs_cub"), (int, float)))
        if pts:
            ratio.plot([p[0] for p in pts], [p[1] for p in pts], "-o", ms=3, lw=1, label=f"{t} {op}")
    ratio.axhline(1, color="black", lw=1)
    ratio.set_xscale("log", base=2)
    ratio.set_xlabel("n (elements, log scale)")
    ratio.set_ylabel("CUB's time / warpfold's (×)")
    ratio.set_title("warpfold vs CUB at every size (above 1: warpfold faster)")
    ratio.grid(alpha=0.3)
    ratio.legend(fontsize=7, ncol=5)
    fig.suptitle("device-wide reduce: bandwidth vs n, and the ratio to CUB")
    fig.tight_layout(rect=(0, 0, 1, 0.98))  # room for the title above the panels
    fig.savefig(os.path.join(out, "bench.png"), dpi=110)
    plt.close(fig)
    return [("bench.png", "warpfold::reduce, cub::DeviceReduce and thrust::reduce against the measured and theoretical "
             "peaks, and warpfold's ratio to CUB at every size. " + bench_timing_text(m))]


def fig_segmented(plt, lesson, out):
    """Bandwidth per shape (distinct bytes moved over the median time): warpfold, CUB where it has
    the operation, and the roofline probe that bounds them, one horizontal bar group per shape."""
    table = [r for r in rows(lesson) if isinstance(r.get("gbps"), (int, float))]
    if not table:
        return []
    shapes = list(dict.fromkeys(f"{r['kind']}: {r['shape']}" for r in table))
    libs = (("roofline probe", "lightgray"), ("cub", "tab:orange"), ("warpfold", "tab:blue"))
    by = {(f"{r['kind']}: {r['shape']}", r["library"]): r["gbps"] for r in table}
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(shapes) + 1.5))
    height = 0.8 / len(libs)
    for k, (lib, color) in enumerate(libs):
        ys = [i + (k - 1) * height for i, s in enumerate(shapes) if (s, lib) in by]
        xs = [by[(s, lib)] for s in shapes if (s, lib) in by]
        ax.barh(ys, xs, height=height, color=color, label=lib)
    if meta(lesson).get("peak_read_gbps"):
        ax.axvline(meta(lesson)["peak_read_gbps"], color="gray", ls="--", lw=1, label="measured DRAM peak")
    ax.set_yticks(range(len(shapes)))
    ax.set_yticklabels(shapes, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s (input, offsets and outputs, each byte once)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("segmented and axis reductions: bandwidth per shape")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "segmented.png"), dpi=110)
    plt.close(fig)
    return [("segmented.png", "warpfold's segmented and axis reductions, cub::DeviceSegmentedReduce where it has the "
             "operation, and the roofline probe (torch and cupy: bench/segmented_torch.py)")]


FIGURES = {"registers": fig_registers, "ladder": fig_ladder, "sweep": fig_sweep, "divergence": fig_divergence, "grid": fig_grid,
           "nested": fig_nested, "bench": fig_bench, "segmented": fig_segmented}

STATUS = {"ok": "ran on the GPU; every check passed",
          "cpu-only": "no CUDA device: only the CPU part ran (the GPU sections need a CUDA device)",
          "wrong": "ran, but a result that must be exact was WRONG (see the check column)",
          "skipped": "not run here",
          "failed": "failed"}


def ratio_text(v):
    return f"{v:.2f}×" if isinstance(v, (int, float)) else "-"


def doc_link(path, out):
    """A link from the report's directory to a page of the source tree's docs ("docs/x.md#anchor")."""
    page, _, anchor = path.partition("#")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    link = os.path.relpath(os.path.join(root, page), os.path.abspath(out))
    return link + ("#" + anchor if anchor else "")


def headline(doc, out):
    """The chapter's claims judged on this run (results.json's "claims", computed by `warpfold report`
    from the sections' tables and the book's numbers): each links its section, and a reversed one
    the doc that explains it."""
    claims = doc.get("claims") or {}
    rows = claims.get("rows") or []
    if not rows:
        return []
    lines = ["## The chapter's claims on this GPU", "",
             "| claim | book | book's GPU | this GPU | verdict |", "|---|---|---|---|---|"]
    for r in rows:
        verdict = r.get("verdict", "")
        if verdict == "reversed" and r.get("doc"):
            verdict = f"**reversed** ([why]({doc_link(r['doc'], out)}))"
        lines.append(f"| [{r['claim']}](#{r['section']}) | {ratio_text(r.get('book_ratio'))} | "
                     f"{r.get('book_source') or '-'} | {ratio_text(r.get('here_ratio'))} | {verdict} |")
    lines.append("")
    lines += [f"- {n}" for n in claims.get("notes") or []]
    return lines + [""]


# --- section bodies: a section is its lesson's Markdown unless a summary stands in for it -----

# The bench summary's size bands (log2 n, inclusive): launch-bound, L2-sized, DRAM-bound on the GPUs
# the project builds for.
BENCH_BANDS = (("2^10–2^19", 10, 19), ("2^20–2^25", 20, 25), ("2^26–2^30", 26, 30))
BENCH_PEAK_SIZES = (28, 30)  # log2 n where the summary gives warpfold's % of peak
MAX_SUMMARY_ROWS = 20


def geomean_cell(values):
    """The geometric mean of ratios with their range, or "-" where there are none."""
    if not values:
        return "-"
    mean = math.exp(sum(math.log(v) for v in values) / len(values))
    return f"{mean:.2f}× ({min(values):.2f}–{max(values):.2f})" if len(values) > 1 else f"{mean:.2f}×"


def preamble(lesson):
    """The lines a lesson printed above its tables (its Markdown up to the first table)."""
    return (lesson.get("markdown") or "").split("\n### ", 1)[0].strip()


def table_notes(lesson, table_index=0):
    tables = (lesson.get("report") or {}).get("tables") or []
    return tables[table_index].get("notes") or [] if len(tables) > table_index else []


def bench_summary(lesson):
    """warpfold's ratio to CUB and to Thrust by size band, and its % of peak at the largest sizes,
    one row per type and operation (per type where that would pass MAX_SUMMARY_ROWS)."""
    table = [r for r in rows(lesson) if isinstance(r.get("median_us"), (int, float))]
    by_case = {}
    for r in table:
        by_case.setdefault((r["type"], r["op"], r["n"]), {})[r["library"]] = r
    cases = list(dict.fromkeys((r["type"], r["op"]) for r in table))
    key = (lambda t, op: (t, op)) if len(cases) <= MAX_SUMMARY_ROWS else (lambda t, op: (t, "all"))
    summary = {}
    for (t, op, n), libs in by_case.items():
        wf = libs.get("warpfold")
        if not wf or not wf["median_us"] > 0:
            continue
        cell = summary.setdefault(key(t, op), {"cub": {}, "thrust": {}, "peak": {}})
        band = next((b for b, lo, hi in BENCH_BANDS if lo <= wf["log2_n"] <= hi), None)
        if band and isinstance(wf.get("ratio_vs_cub"), (int, float)):
            cell["cub"].setdefault(band, []).append(wf["ratio_vs_cub"])
        if band and "thrust" in libs:
            cell["thrust"].setdefault(band, []).append(libs["thrust"]["median_us"] / wf["median_us"])
        if wf["log2_n"] in BENCH_PEAK_SIZES and isinstance(wf.get("pct_measured_peak"), (int, float)):
            cell["peak"].setdefault(wf["log2_n"], []).append(wf["pct_measured_peak"])
    bands = [b for b, _, _ in BENCH_BANDS]
    head = (["type", "op"] + [f"vs CUB {b}" for b in bands] + [f"vs Thrust {b}" for b in bands]
            + [f"% of peak at 2^{k}" for k in BENCH_PEAK_SIZES])
    lines = ["### warpfold against CUB and Thrust, by size band", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for (t, op), cell in summary.items():
        peaks = [f"{sum(v) / len(v):.0f}%" if (v := cell["peak"].get(k)) else "-" for k in BENCH_PEAK_SIZES]
        lines.append("| " + " | ".join([t, op] + [geomean_cell(cell["cub"].get(b)) for b in bands]
                                        + [geomean_cell(cell["thrust"].get(b)) for b in bands] + peaks) + " |")
    lines += ["", "- vs CUB: the geometric mean over the band's sizes of the bench's vs CUB (CUB's time / warpfold's, "
              "timed in the same rounds), its range in brackets; vs Thrust: Thrust's median time / warpfold's; above 1: "
              "warpfold is faster; -: no size of the band in this run",
              "- % of peak: warpfold's bandwidth against the measured read peak of its input's memory (the bench's "
              "peak column: DRAM at these sizes); -: the size is not in this run"]
    if key("", "") == ("", "all"):
        lines.append("- one row per type: the operations are pooled, so the table stays short")
    return lines


def bench_body(lesson):
    """The bench's preamble, its summary and how it was measured; the full per-size table is in
    results.json and its CSV."""
    full = len(rows(lesson))
    where = f"[{lesson['csv']}]({lesson['csv']}) and results.json" if lesson.get("csv") else "results.json"
    lines = [preamble(lesson), ""] + bench_summary(lesson)
    lines += ["", f"The full table ({full} rows: every size, type, operation and library, with spreads and "
              f"launch floors) is in {where}. How it was measured:", ""]
    return lines + [f"- {n}" for n in table_notes(lesson)] + [""]


def csv_link(lesson):
    return [f"*Tables as CSV: [{lesson['csv']}]({lesson['csv']}).*", ""] if lesson.get("csv") else []


SECTION_BODIES = {"bench": bench_body}


def section_body(lesson):
    if lesson["key"] in SECTION_BODIES and rows(lesson):
        return SECTION_BODIES[lesson["key"]](lesson)
    return [lesson.get("markdown") or "", ""] + csv_link(lesson)


# --- profiler metrics shown in a lesson's own section, from its profiled section ------------

# Section key -> the profile table's columns it shows (key, header), and whether its rows are
# builds of one kernel ("mathKernel1 (-O3)") to be set side by side.
PROFILE_VIEWS = {
    "grid": {"columns": (("achieved_occupancy_pct", "achieved occupancy %"), ("gld_efficiency_pct", "gld_efficiency %"),
                         ("gld_throughput_gbps", "gld_throughput GB/s")), "builds": False},
    "divergence": {"columns": (("branch_efficiency_pct", "branch_efficiency %"),
                               ("achieved_occupancy_pct", "achieved occupancy %")), "builds": True},
}


def profile_entry(doc, lesson):
    """The profiled section of `lesson`'s lesson in this run, or None."""
    return next((l for l in doc.get("lessons", []) if l.get("profiled") and l.get("lesson") == lesson.get("lesson")
                 and l.get("lesson")), None)


def metric_text(v):
    return f"{v:.1f}" if isinstance(v, (int, float)) else "-"


def split_build(label):
    """"mathKernel1 (-O3)" -> ("mathKernel1", "-O3"); a label without a build -> (label, "")."""
    name, sep, build = label.rpartition(" (")
    return (name, build.rstrip(")")) if sep else (label, "")


def profile_view(doc, lesson):
    """The section's profiler metrics from its lesson's profiled section, or a line saying why the
    run has none."""
    view = PROFILE_VIEWS[lesson["key"]]
    p = profile_entry(doc, lesson)
    lines = ["### Profiler metrics (Nsight Compute)", ""]
    if p is None:
        return lines + ["*Not measured: this run has no profile pass for this section (`warpfold profile "
                        f"{lesson.get('lesson') or lesson['key']}` measures them, as `warpfold report` does where ncu "
                        "is usable).*", ""]
    if p.get("status") not in ("ok", "wrong") or not rows(p):
        reason = (p.get("error") or STATUS.get(p.get("status"), p.get("status") or "")).rstrip(".")
        return lines + [f"*Not measured in this run: {reason}.*", ""]
    table = rows(p)
    columns = view["columns"]
    if view["builds"]:
        builds = list(dict.fromkeys(split_build(r["kernel"])[1] for r in table))
        by = {split_build(r["kernel"]): r for r in table}
        head = ["kernel"] + [f"{h} ({b})" for _, h in columns for b in builds]
        body = [[name] + [metric_text((by.get((name, b)) or {}).get(k)) for k, _ in columns for b in builds]
                for name in dict.fromkeys(split_build(r["kernel"])[0] for r in table)]
    else:
        head = ["kernel"] + [h for _, h in columns]
        body = [[r["kernel"]] + [metric_text(r.get(k)) for k, _ in columns] for r in table]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return lines + ["", f"*Each kernel profiled once under ncu, with the run's options; every metric of the "
                        f"profile, with its ncu name, is in [its section](#{p['key']}).*", ""]


def assemble(doc, out, plots):
    figdir = os.path.join(out, "figures")
    os.makedirs(figdir, exist_ok=True)
    plt = None
    if plots:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: F811
    m = doc.get("meta", {})
    lines = ["# warpfold: chapter 3 measured on this machine", ""]
    device = m.get("device") or f"no CUDA device ({m.get('no_device_reason', 'unknown reason')})"
    lines += [f"Device: {device}. Date: {m.get('date')}. warpfold {m.get('warpfold', '(version unknown)')}, "
              f"commit {m.get('commit')}.", ""]
    if not m.get("device"):
        lines += ["**The GPU sections need a CUDA device**: this report holds the CPU parts only.", ""]
    lines += headline(doc, out)
    lines += ["| lesson | status | seconds |", "|---|---|---|"]
    for l in doc.get("lessons", []):
        lines.append(f"| [{l['title']}](#{l['key']}) | {l['status']} | {l.get('seconds', 0):.1f} |")
    lines.append("")
    for l in doc.get("lessons", []):
        lines += [f'<a id="{l["key"]}"></a>', f"## {l['title']}", ""]
        status = STATUS.get(l["status"], l["status"])
        if l["status"] in ("failed", "skipped"):
            status += ": " + (l.get("error") or "no message").rstrip(".")
        lines += [f"*Status: {status}.*", ""]
        if plt is not None and l["status"] in ("ok", "wrong") and l["key"] in FIGURES:
            try:
                for name, caption in FIGURES[l["key"]](plt, l, figdir):
                    lines += [f"![{caption}](figures/{name})", "", f"*{caption}.*", ""]
            except Exception as e:  # a figure must not take the section's tables with it
                lines += [f"*Figure not drawn: {e}*", ""]
        lines += section_body(l)
        if l["key"] in PROFILE_VIEWS and l["status"] in ("ok", "wrong"):
            lines += profile_view(doc, l)
    md = "\n".join(lines)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(to_html(md))


def to_html(md):
    try:
        import markdown
        body = markdown.markdown(md, extensions=["tables"])
    except ImportError:  # readable without the markdown package, if plainer
        body = "<pre>" + html.escape(md) + "</pre>"
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
             "table{border-collapse:collapse;font-size:12px;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px}"
             "img{max-width:100%}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>warpfold report</title><style>{style}</style></head><body>{body}</body></html>\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args()
    try:
        with open(a.results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"assemble_report: cannot read {a.results}: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    assemble(doc, a.out, not a.no_plots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
