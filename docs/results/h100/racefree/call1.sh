#!/usr/bin/env bash
# Session of 2026-11-28 (2), call 1 (issue 19): the tiled kernel's hand-over
# stores made exchanges (StateWord::put, kernels-rs/src/word.rs). What racecheck
# says of an exchange paired with a plain relaxed load (the probe's variant 5),
# the cost side by side with the build before (bundle/vertex-old, a556f3a),
# every new run --validate'd, and compute-sanitizer on the new kernels.
#   run (carry ["bundle"]): bash docs/results/h100/racefree/call1.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OUT=$OUT bash "$B/gpu-run.sh" info raceprobe >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./raceprobe.log ./info.log; rm -f "$OUT/results.tgz"
cat "$OUT/raceprobe.log"
grep -m1 "H100\|H200" "$OUT/info.log"
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
one() { # label binary program graph source [extra...]
    local l=$1 b=$2 p=$3 g=$4 s=$5; shift 5
    "$B/$b" "$p" "$g" --backend gpu --kernel tiles --source "$s" --json "$@" \
        2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%-4s %-6s %-22s %7s %8.3f ms rounds %5s validated %s" % (sys.argv[1], sys.argv[2],
      sys.argv[3], sys.argv[4], d["time_s"] * 1e3, d["rounds"], d.get("validated")))' "$l" "$p" "$g" "$s"
}
{
    for g in grid:1000x1000 grid:2000x1000; do
        srcs="0 500500 123456"; [ "$g" = grid:2000x1000 ] && srcs="0 1000500"
        for p in sssp bfs widest cc; do
            for s in $srcs; do
                for r in 1 2; do
                    one old vertex-old "$p" "$g" "$s"
                    v=(); [ "$r" = 1 ] && v=(--validate)
                    one new vertex "$p" "$g" "$s" "${v[@]}"
                done
            done
        done
    done
    for p in sssp bfs; do
        for r in 1 2; do
            one old vertex-old "$p" uniform:200000:3000000 0
            one new vertex "$p" uniform:200000:3000000 0 --validate
        done
    done
} 2>&1 | tee "$OUT/ab.log"
{
    for t in racecheck memcheck synccheck; do
        for g in grid:60x40 uniform:3000:24000; do
            for p in bfs sssp widest cc; do
                echo "== $t $p $g"
                "$SAN" --tool "$t" "$B/vertex" "$p" "$g" --backend gpu --kernel tiles --validate 2>&1 \
                    | grep -E "SUMMARY|oracle|rror|Race reported|and (Read|Write) access"
            done
        done
    done
} 2>&1 | tee "$OUT/sanitize.log"
ls "$OUT"
