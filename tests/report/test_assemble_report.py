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

    def test_unreadable_input_is_an_error(self):
        out = tempfile.mkdtemp()
        rc = subprocess.run([sys.executable, ASSEMBLER, os.path.join(out, "missing.json"), out]).returncode
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
