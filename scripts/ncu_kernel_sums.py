#!/usr/bin/env python3
"""Nsight Compute raw CSV with one metric -> device time summed per kernel name.

    ncu --metrics gpu__time_duration.sum --csv --page raw CMD > run.csv
    python3 scripts/ncu_kernel_sums.py run.csv --parts 2 --scale 22 --searches 2 > run.json
    python3 scripts/ncu_kernel_sums.py --table run-*.json

ncu runs one kernel at a time, so the sum is the work done, without any overlap:
run over parts that share one GPU, it tells the work each part repeats (scans of
the whole bitmap, short rows split over parts) from the work the parts divide.
`--searches` divides the sums into per-search figures (warm-ups included in the
count). `--table` prints, per scale, each kernel's time per search for every part
count and the ratio to one part.
"""
import argparse
import csv
import json
import sys

METRIC = "gpu__time_duration.sum"


def sums(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r and METRIC in r), None)
    if head is None:
        raise SystemExit(f"{path}: no header with 'Kernel Name' and {METRIC}")
    name_col = rows[head].index("Kernel Name")
    time_col = rows[head].index(METRIC)
    unit = "nsecond"
    out = {}
    for r in rows[head + 1:]:
        if len(r) <= max(name_col, time_col):
            continue
        text = r[time_col].replace(",", "")
        try:
            value = float(text)
        except ValueError:
            # The units row.
            unit = text or unit
            continue
        ns = value * {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
        k = out.setdefault(r[name_col], {"launches": 0, "total_us": 0.0})
        k["launches"] += 1
        k["total_us"] += ns / 1e3
    return out


def table(paths):
    runs = [json.load(open(p)) for p in paths]
    for scale in sorted({r["scale"] for r in runs}):
        at = sorted((r for r in runs if r["scale"] == scale), key=lambda r: r["parts"])
        names = sorted({k for r in at for k in r["kernels"]})
        print(f"scale {scale}: device time per search (us), parts " + " / ".join(str(r["parts"]) for r in at))
        base = at[0]
        for n in names + ["(all kernels)"]:
            cells = []
            for r in at:
                if n == "(all kernels)":
                    t = r["total_us"] / r["searches"]
                else:
                    t = r["kernels"].get(n, {"total_us": 0.0})["total_us"] / r["searches"]
                cells.append(t)
            b = cells[0]
            ratios = " ".join(f"{c / b:5.2f}x" if b > 0 else "    -" for c in cells[1:])
            print(f"  {n[:40]:40} " + " ".join(f"{c:9.1f}" for c in cells) + f"   vs {base['parts']} part: {ratios}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--scale", type=int, default=0)
    ap.add_argument("--searches", type=int, default=1)
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    if a.table:
        table(a.inputs)
        return
    k = sums(a.inputs[0])
    json.dump(
        {
            "scale": a.scale,
            "parts": a.parts,
            "searches": a.searches,
            "kernels": k,
            "total_us": sum(v["total_us"] for v in k.values()),
        },
        sys.stdout,
        indent=1,
    )


if __name__ == "__main__":
    main()
