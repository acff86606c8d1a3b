#!/usr/bin/env python3
"""The one line scripts/test.sh ends with: ctest's results counted by label (cpu, gpu), with the
reasons tests were skipped, e.g. "232 CPU tests passed; 152 GPU tests skipped: no CUDA device".
Reads `ctest --show-only=json-v1` (each test's labels) and `ctest --output-junit` (each test's
outcome and output).
   ctest_summary.py TESTS.json RESULTS.xml"""
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter


def labels_by_test(tests_json):
    labels = {}
    for test in tests_json.get("tests", []):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels[test["name"]] = props.get("LABELS", [])
    return labels


def skip_reason(output):
    """Why a test was skipped, from its output: the GPU tests' "no CUDA device (...)" in short, else
    the last line it printed."""
    if re.search(r"no (usable )?CUDA device", output):
        return "no CUDA device"
    lines = [line.strip() for line in output.splitlines() if line.strip() and not line.startswith("[")]
    reason = lines[-1] if lines else "no reason given"
    return reason if len(reason) <= 100 else reason[:97] + "..."


def group_phrase(group, outcomes, reasons):
    """E.g. "232 CPU tests passed, 1 skipped: NCCL not found", or "152 GPU tests skipped: no CUDA device"."""
    pieces = []
    for outcome in ("FAILED", "passed", "skipped"):
        n = outcomes[outcome]
        if not n:
            continue
        noun = f" {group} test{'s' if n != 1 else ''}" if not pieces else ""
        text = f"{n}{noun} {outcome}"
        if outcome == "skipped":
            text += ": " + ", ".join(reason if count == n else f"{count} {reason}"
                                     for reason, count in reasons.most_common(3))
        pieces.append(text)
    return ", ".join(pieces)


def summarize(labels, results):
    outcomes = {"CPU": Counter(), "GPU": Counter()}
    reasons = {"CPU": Counter(), "GPU": Counter()}
    failed = []
    for case in results.iter("testcase"):
        name = case.get("name")
        group = "GPU" if "gpu" in labels.get(name, []) else "CPU"
        outcome = {"run": "passed", "notrun": "skipped"}.get(case.get("status"), "FAILED")
        if outcome == "skipped" and case.find("skipped") is None:
            outcome = "FAILED"  # not run for another reason (a missing executable, say)
        outcomes[group][outcome] += 1
        if outcome == "skipped":
            reasons[group][skip_reason(case.findtext("system-out") or "")] += 1
        elif outcome == "FAILED":
            failed.append(name)
    line = "; ".join(group_phrase(g, outcomes[g], reasons[g]) for g in ("CPU", "GPU") if outcomes[g])
    if failed:
        line += f". Failed: {', '.join(failed[:10])}" + (" ..." if len(failed) > 10 else "")
    return line or "no tests ran"


def main(tests_path, results_path):
    with open(tests_path) as f:
        labels = labels_by_test(json.load(f))
    print(summarize(labels, ET.parse(results_path).getroot()))


if __name__ == "__main__":
    main(*sys.argv[1:3])
