#!/usr/bin/env bash
# Session of 2026-11-28, call 1 (issue 19): what racecheck reports for a
# shared-memory hand-over without a block barrier (bench/cuda/racecheck_handover.cu),
# then the tiled SSSP's bucket width swept again on the 1000² grid with the
# messenger build (the last sweep, docs/results/h100/rings/, predates it).
#   run (carry ["bundle"]): bash docs/results/h100/delta-race/call1.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OUT=$OUT bash "$B/gpu-run.sh" info raceprobe >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./raceprobe.log ./info.log; rm -f "$OUT/results.tgz"
cat "$OUT/raceprobe.log"
grep -m1 "H100\|H200" "$OUT/info.log"
{
    echo "delta source run ms rounds validated"
    for src in 0 500500 123456 777777; do
        for d in 50 100 150 200 300 auto; do
            for r in 1 2; do
                v=""; [ "$r" = 1 ] && v="--validate"
                "$B/vertex" sssp grid:1000x1000 --backend gpu --kernel tiles --delta "$d" \
                    --source "$src" $v --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sys.argv[1], sys.argv[2], sys.argv[3], "%.3f" % (d["time_s"] * 1e3), d["rounds"], d.get("validated"))' "$d" "$src" "$r"
            done
        done
    done
} 2>&1 | tee "$OUT/delta-sweep.log"
