"""Report assembly from recorded JSON: sections present, figures written, a failed lesson isolated,
and a report made without a GPU that says what it lacks. The fixture results_h200.json holds real
lesson outputs recorded on an NVIDIA H200, plus one lesson marked failed."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ASSEMBLER = os.path.join(ROOT, "scripts", "report", "assemble_report.py")
FIXTURE = os.path.join(ROOT, "tests", "data", "report", "results_h200.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assemble(doc, extra=()):
    out = tempfile.mkdtemp(prefix="warpfold_report_")
    path = os.path.join(out, "results.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([sys.executable, ASSEMBLER, path, out, *extra], check=True)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    with open(os.path.join(out, "report.html")) as f:
        html = f.read()
    return out, md, html


class AssembleReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(FIXTURE) as f:
            cls.doc = json.load(f)
        cls.out, cls.md, cls.html = assemble(cls.doc)

    def test_header_names_the_version_and_commit(self):
        meta = self.doc["meta"]
        self.assertIn(f"warpfold {meta['warpfold']}, commit {meta['commit']}", self.md)

    def test_every_lesson_has_a_section(self):
        for lesson in self.doc["lessons"]:
            self.assertIn("## " + lesson["title"], self.md)

    def test_figures_are_real_pngs_and_linked(self):
        for name in ("ladder", "sweep", "divergence", "grid", "nested", "bench"):
            path = os.path.join(self.out, "figures", name + ".png")
            with open(path, "rb") as f:
                head = f.read(8)
            self.assertEqual(head, PNG_SIGNATURE, path)
            self.assertGreater(os.path.getsize(path), 10000, path)
            self.assertIn("](figures/%s.png)" % name, self.md)

    def test_register_limits_are_drawn(self):
        # Rows shaped as `warpfold registers` writes them (its table's keys); the values only need drawing.
        variants = [("registerHeavy", "none", 64, 0, 50.0, 0.41), ("registerHeavy", "__maxnreg__(32)", 32, 504, 100.0, 0.52),
                    ("sharedHeavy", "none", 32, 0, 50.0, 0.63)]
        rows = [{"kernel": k, "limit": l, "registers": regs, "local_bytes": local, "occupancy_pct": occ,
                 "median_ms": ms, "check": "ok"} for k, l, regs, local, occ, ms in variants]
        doc = copy.deepcopy(self.doc)
        doc["lessons"].append({"key": "registers", "title": "Resource-limited occupancy", "status": "ok",
                               "seconds": 1.0, "markdown": "", "report": {"tables": [{"rows": rows}]}})
        out, md, _ = assemble(doc)
        with open(os.path.join(out, "figures", "registers.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        self.assertIn("](figures/registers.png)", md)

    def test_failed_lesson_is_isolated(self):
        self.assertIn("failed: ncu exited with ERR_NVGPUCTRPERM", self.md)
        # the lessons after and before it are whole: their tables are still there
        self.assertIn("| reduceCompleteUnroll |", self.md)
        self.assertIn("sumMatrixOnGPU2D", self.md)

    def test_skipped_lesson_says_why(self):
        doc = copy.deepcopy(self.doc)
        doc["lessons"][-1].update(status="skipped", error="ncu not found (looked in PATH).")
        _, md, _ = assemble(doc, ("--no-plots",))
        self.assertIn("*Status: not run here: ncu not found (looked in PATH).*", md)

    def test_html_has_tables_and_images(self):
        self.assertIn("<table", self.html)
        self.assertIn('src="figures/bench.png"', self.html)

    def test_without_a_gpu_the_report_says_so_and_draws_nothing(self):
        doc = copy.deepcopy(self.doc)
        doc["meta"]["device"] = None
        doc["meta"]["no_device_reason"] = "no CUDA-capable GPU found"
        for lesson in doc["lessons"]:
            lesson["status"] = "cpu-only"
        out, md, _ = assemble(doc)
        self.assertIn("The GPU sections need a CUDA device", md)
        self.assertEqual(os.listdir(os.path.join(out, "figures")), [])

    def test_claims_head_the_report_and_link_their_sections(self):
        doc = copy.deepcopy(self.doc)
        doc["claims"] = {"rows": [
            {"claim": "Interleaved beats Neighbored", "section": "ladder", "book_ratio": 1.68,
             "book_source": "Tesla M2070, seed 004 (3.4.3)", "here_ratio": 2.21, "verdict": "holds",
             "doc": "docs/ladder.md"},
            {"claim": "warp unrolling helps", "section": "ladder", "book_ratio": 1.28, "book_source": "x",
             "here_ratio": 0.91, "verdict": "reversed", "doc": "docs/ladder.md"},
            {"claim": "more occupancy is faster", "section": "grid", "book_ratio": None, "book_source": None,
             "here_ratio": None, "verdict": "not measurable here", "doc": "docs/execution-model.md#3-grid"}],
            "notes": ["ratios: the slower row's time / the faster's"]}
        out, md, _ = assemble(doc, ("--no-plots",))
        self.assertLess(md.index("## The chapter's claims on this GPU"), md.index("| lesson | status | seconds |"))
        self.assertIn("| [Interleaved beats Neighbored](#ladder) | 1.68× | Tesla M2070, seed 004 (3.4.3) | 2.21× | holds |", md)
        link = os.path.relpath(os.path.join(ROOT, "docs", "ladder.md"), out)
        self.assertIn(f"**reversed** ([why]({link}))", md)
        self.assertIn("| [more occupancy is faster](#grid) | - | - | - | not measurable here |", md)
        self.assertIn('<a id="grid"></a>', md)

    def test_without_claims_there_is_no_headline(self):
        self.assertNotIn("claims on this GPU", self.md)

    def bench_section(self, md):
        start = md.index('<a id="bench"></a>')
        return md[start:md.index("<a id=", start + 1)]

    def test_bench_is_a_summary_with_its_full_table_linked(self):
        doc = copy.deepcopy(self.doc)
        bench = next(l for l in doc["lessons"] if l["key"] == "bench")
        bench["csv"] = "tables/bench.csv"
        _, md, _ = assemble(doc, ("--no-plots",))
        section = self.bench_section(md)
        table = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
        self.assertLessEqual(len(table) - 1, 20)
        self.assertEqual(len(table) - 1, 6)  # the fixture's 3 types x 2 operations
        self.assertIn("[tables/bench.csv](tables/bench.csv) and results.json", section)
        self.assertNotIn("| 1073741824 |", section)  # no per-size row
        # int32 sum at 2^26..2^30: the geometric mean of warpfold's vs CUB over those sizes
        ratios = [r["ratio_vs_cub"] for r in bench["report"]["tables"][0]["rows"]
                  if (r["type"], r["op"], r["library"]) == ("int32", "sum", "warpfold") and r["log2_n"] >= 26]
        mean = (ratios[0] * ratios[1]) ** 0.5
        peak = next(r["pct_measured_peak"] for r in bench["report"]["tables"][0]["rows"]
                    if (r["type"], r["op"], r["library"], r["log2_n"]) == ("int32", "sum", "warpfold", 30))
        row = next(line for line in table if line.startswith("| int32 | sum |"))
        self.assertIn(f"| {mean:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) |", row)
        self.assertTrue(row.endswith(f"| - | {peak:.0f}% |"), row)  # no 2^28 in the fixture's sizes

    def test_bench_figure_says_how_the_l2_was_treated(self):
        self.assertIn("warm L2", self.md)
        self.assertIn("can exceed the DRAM peak", self.md)
        doc = copy.deepcopy(self.doc)
        next(l for l in doc["lessons"] if l["key"] == "bench")["report"]["meta"]["cold"] = True
        _, md, _ = assemble(doc)
        self.assertIn("cold L2", self.bench_section(md))

    def test_an_invalid_shape_is_a_labelled_gap(self):
        sys.path.insert(0, os.path.dirname(ASSEMBLER))
        import assemble_report
        grid = next(l for l in self.doc["lessons"] if l["key"] == "grid")
        gaps = {r["block"]: assemble_report.shape_gap(r) for r in grid["report"]["tables"][0]["rows"]}
        self.assertEqual(gaps["256x8"], "invalid: threads per block 2048 > 1024")
        self.assertEqual(sum(g is not None for g in gaps.values()), 1)
        self.assertIn("a hatched gap is a shape this device cannot launch", self.md)

    def profiled_doc(self, grid_profile, divergence_profile):
        doc = copy.deepcopy(self.doc)
        for l in doc["lessons"]:
            l["lesson"], l["profiled"] = l["key"], False
        doc["lessons"] += [dict(p, lesson=p["key"].split("-")[0], profiled=True, seconds=1.0, markdown="")
                           for p in (grid_profile, divergence_profile)]
        return doc

    def test_grid_and_divergence_show_their_profiler_metrics(self):
        # Rows shaped as `warpfold profile grid|divergence` writes them (the profile table's keys).
        grid_rows = [{"kernel": "32x16", "achieved_occupancy_pct": 91.25, "gld_efficiency_pct": 100.0,
                      "gld_throughput_gbps": 2734.5},
                     {"kernel": "256x1", "achieved_occupancy_pct": 78.5, "gld_efficiency_pct": 100.0,
                      "gld_throughput_gbps": 3101.0}]
        div_rows = [{"kernel": k + " (" + b + ")", "branch_efficiency_pct": e, "achieved_occupancy_pct": 90.0}
                    for k, b, e in (("mathKernel1", "-O3", 100.0), ("mathKernel2", "-O3", 100.0),
                                    ("mathKernel1", "-G", 83.33), ("mathKernel2", "-G", 100.0))]
        doc = self.profiled_doc(
            {"key": "grid-profile", "title": "Grid under ncu", "status": "ok", "report": {"tables": [{"rows": grid_rows}]}},
            {"key": "divergence-profile", "title": "Divergence under ncu", "status": "ok",
             "report": {"tables": [{"rows": div_rows}]}})
        _, md, _ = assemble(doc, ("--no-plots",))
        grid = md[md.index('<a id="grid"></a>'):md.index('<a id="nested"></a>')]
        self.assertIn("| kernel | achieved occupancy % | gld_efficiency % | gld_throughput GB/s |", grid)
        self.assertIn("| 256x1 | 78.5 | 100.0 | 3101.0 |", grid)
        self.assertIn("](#grid-profile)", grid)
        divergence = md[md.index('<a id="divergence"></a>'):md.index('<a id="grid"></a>')]
        self.assertIn("| kernel | branch_efficiency % (-O3) | branch_efficiency % (-G) |", divergence)
        self.assertIn("| mathKernel1 | 100.0 | 83.3 | 90.0 | 90.0 |", divergence)

    def test_a_run_without_profiler_metrics_says_so(self):
        self.assertIn("*Not measured: this run has no profile pass for this section (`warpfold profile grid`", self.md)
        skipped = {"status": "skipped", "error": "ncu not found (looked in PATH).", "report": None}
        doc = self.profiled_doc(dict(skipped, key="grid-profile", title="g"),
                                dict(skipped, key="divergence-profile", title="d"))
        _, md, _ = assemble(doc, ("--no-plots",))
        self.assertEqual(md.count("*Not measured in this run: ncu not found (looked in PATH).*"), 2)

    def test_unreadable_input_is_an_error(self):
        out = tempfile.mkdtemp()
        rc = subprocess.run([sys.executable, ASSEMBLER, os.path.join(out, "missing.json"), out]).returncode
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
