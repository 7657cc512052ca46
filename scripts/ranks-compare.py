#!/usr/bin/env python3
"""Graph500 over ranks against the same graph in one process, side by side.

    ranks-compare.py ONE.json RANKS.json [SINGLE.json]

ONE: `vertex bench graph500 --gpus G` (one process, G GPUs); RANKS: the same
under `vertex launch -n G` (one process per GPU); SINGLE (optional): one GPU.
Checks that both searched the same roots and reached the same vertices and
input tuples from each (nedge), then prints the ratios of their median BFS
time and harmonic-mean TEPS. Exit 1 when the runs disagree or one is invalid.
"""
import json
import sys


def load(path):
    d = json.load(open(path))
    return d, d["report"]


def main():
    one_d, one = load(sys.argv[1])
    rk_d, rk = load(sys.argv[2])
    bad = []
    if [r["root"] for r in one["roots"]] != [r["root"] for r in rk["roots"]]:
        bad.append("different roots")
    for a, b in zip(one["roots"], rk["roots"]):
        if (a["reached"], a["nedge"]) != (b["reached"], b["nedge"]):
            bad.append("root %d: one process reached %d (nedge %d), ranks %d (nedge %d)"
                       % (a["root"], a["reached"], a["nedge"], b["reached"], b["nedge"]))
    for name, r in (("one process", one), ("ranks", rk)):
        if not r["valid"]:
            bad.append("%s: %d searches invalid" % (name, len(r["failures"])))
    s = one["config"]["scale"]
    h1, h2 = one["teps"]["harmonic_mean"], rk["teps"]["harmonic_mean"]
    m1, m2 = one["bfs_time"]["median"], rk["bfs_time"]["median"]
    print("scale %d, %d roots: one process %s %.1f GTEPS (median %.3f ms), %d ranks %.1f GTEPS "
          "(median %.3f ms, rank 0 exchanging %.3f ms a search): ranks/one-process TEPS %.3f, "
          "time %.3f"
          % (s, len(rk["roots"]), one["backend"], h1 / 1e9, m1 * 1e3, rk["processes"],
             h2 / 1e9, m2 * 1e3, rk_d.get("exchange_ms_mean") or 0.0, h2 / h1, m2 / m1))
    # Each rank's split (older reports: rank 0's alone).
    splits = rk_d.get("rank_split_mean") or (
        [rk_d["rank0_split_mean"]] if rk_d.get("rank0_split_mean") else [])
    for rank, (sp, host) in enumerate(splits):
        print("  rank %d per search: levels %.3f ms (kernels %.3f, all-gather and waiting %.3f, "
              "host gaps %.3f), outside the levels %.3f ms"
              % (rank, sp["level_ms"], sp["kernel_max_ms"], sp["allgather_ms"],
                 sp["host_gap_ms"], host))
    if len(sys.argv) > 3:
        _, single = load(sys.argv[3])
        h0 = single["teps"]["harmonic_mean"]
        print("  1 GPU %.1f GTEPS: speedup %d ranks %.2fx, one process %.2fx"
              % (h0 / 1e9, rk["processes"], h2 / h0, h1 / h0))
    for b in bad:
        print("  DISAGREE: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
