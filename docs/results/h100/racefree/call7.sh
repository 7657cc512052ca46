#!/usr/bin/env bash
# Session of 2026-11-28 (2), call 7 (issue 19): SSSP on the 1000² grid, the tiled
# kernel's bucket width (--delta) against chains (VERTEX_TILES_CHAIN), since chains
# were only tried at Δ 200 (../chains/): a narrower window with chains might keep
# the levels down without the re-relaxations. Kept build (call 4), every run
# --validate'd.
#   run (carry ["bundle"]): bash docs/results/h100/racefree/call7.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OUT=$OUT bash "$B/gpu-run.sh" info >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./info.log; rm -f "$OUT/results.tgz"
grep -m1 "H100\|H200" "$OUT/info.log"
{
    echo "delta chain source ms rounds relaxed validated"
    for s in 0 500500 123456; do
        for d in 100 150 200; do
            for c in 0 1 2; do
                VERTEX_TILES_CHAIN=$c "$B/vertex" sssp grid:1000x1000 --backend gpu --kernel tiles \
                    --delta "$d" --source "$s" --validate --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d.get("tiles") or {}
print(sys.argv[1], sys.argv[2], sys.argv[3], "%.3f" % (d["time_s"] * 1e3), d["rounds"], t.get("pops"), d.get("validated"))' "$d" "$c" "$s"
            done
        done
    done
} 2>&1 | tee "$OUT/delta-chain.log"
