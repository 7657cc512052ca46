#!/usr/bin/env python3
"""Nsight Compute CSV (`ncu --csv --page details`) -> compact JSON, one row per launch.

    python3 scripts/ncu_summary.py profile-direction.csv > profile-direction.json

Keeps what the BFS kernel work is judged by: duration, achieved occupancy, active
threads per warp (divergence), cycles per issued instruction (stalls), L2 hit rate
and DRAM throughput, plus a per-kernel total. The raw CSV is ~0.4 MB per run; this
is what docs/results keeps.
"""
import csv
import json
import sys

METRICS = {
    "Duration": "duration_ns",
    "Achieved Occupancy": "achieved_occupancy_pct",
    "Avg. Active Threads Per Warp": "active_threads_per_warp",
    "Warp Cycles Per Issued Instruction": "cycles_per_issued_instruction",
    "L2 Hit Rate": "l2_hit_pct",
    "DRAM Throughput": "dram_throughput_pct",
    "Compute (SM) Throughput": "sm_throughput_pct",
    "Registers Per Thread": "registers",
    "Grid Size": "grid",
    "Block Size": "block",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def summarize(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if head is None:
        raise SystemExit(f"{path}: no ncu table (no 'ID' header row)")
    names = rows[head]
    launches = {}
    for r in rows[head + 1:]:
        d = dict(zip(names, r))
        key = d.get("Metric Name")
        if key not in METRICS:
            continue
        launch = launches.setdefault(int(d["ID"]), {"id": int(d["ID"]), "kernel": d["Kernel Name"]})
        launch[METRICS[key]] = number(d["Metric Value"])
    launches = [launches[i] for i in sorted(launches)]
    totals = {}
    for l in launches:
        t = totals.setdefault(l["kernel"], {"launches": 0, "duration_ns": 0.0})
        t["launches"] += 1
        t["duration_ns"] += l.get("duration_ns") or 0.0
    return {"source": path, "launches": launches, "per_kernel": totals}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    json.dump(summarize(sys.argv[1]), sys.stdout, indent=1)
    print()
