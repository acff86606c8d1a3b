#!/usr/bin/env python3
"""Prints `warpfold multigpu --format json` files as Markdown tables: the scaling table (one row
per run: set-up, GPUs, size, phases, aggregate bandwidth, efficiency against one GPU, check) and
the per-GPU rows. Usage: multigpu_summary.py FILE.json..."""
import json
import sys


def load(paths):
    runs = []
    for path in paths:
        try:
            with open(path) as f:
                runs.append((path, json.load(f)))
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable ({e})")
    return runs


def main(paths):
    runs = load(paths)
    if not runs:
        return 1
    meta = runs[0][1]["meta"]
    device = (meta.get("device") or {}).get("name", "?")
    print(f"\n{device}, NCCL {meta.get('nccl_version')}, {meta.get('nccl_nvls_enable')}, commit {meta.get('commit')}, {meta.get('date')}")
    print("\n| set-up | GPUs | n per GPU | type | op | local us | NCCL us | total us | NCCL alone us "
          "| aggregate GB/s | 1-GPU GB/s | efficiency | check |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    key = lambda r: (r[1]["meta"].get("type"), r[1]["meta"].get("op"), r[1]["meta"].get("n_per_gpu"),
                     r[1]["meta"].get("mode"), r[1]["meta"].get("gpus"))
    for _, doc in sorted(runs, key=key):
        a = doc["tables"][1]["rows"][0]
        n = a["n_per_gpu"]
        size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        print(f"| {a['mode']} | {a['gpus']} | {size} | {a['type']} | {a['op']} | {a['local_us']:.1f} | {a['nccl_us']:.1f} "
              f"| {a['total_us']:.1f} | {a['nccl_alone_us']:.1f} | {a['aggregate_gbps']:.0f} | {a['one_gpu_gbps']:.0f} "
              f"| {a['efficiency_pct']:.1f}% | {a['check']} |")
    print("\n| set-up | GPUs | type | rank | host | GPU | PCI bus | local us | local GB/s | NCCL us | partial check |")
    print("|---|---:|---|---:|---|---:|---|---:|---:|---:|---|")
    for _, doc in sorted(runs, key=key):
        m = doc["meta"]
        for r in doc["tables"][0]["rows"]:
            print(f"| {m['mode']} | {m['gpus']} | {m['type']} | {r['rank']} | {r['host']} | {r['device']} | {r['pci_bus']} "
                  f"| {r['local_median_us']:.1f} | {r['local_gbps']:.0f} | {r['nccl_median_us']:.1f} | {r['partial_check']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
