#!/usr/bin/env bash
# Session of 2026-11-28 (2), call 3 (issue 19): which of the tiled kernel's
# hand-over exchanges (StateWord::put) cost widest paths its 10-24 % (calls 1-2),
# and which racecheck needs. An experiment build only (not committed): the host
# passes VERTEX_TILES_PUTS, a mask of the put sites that exchange (the rest
# store): 1 queue entries and the overflow flag (push), 2 outbox entries
# (relax_edge, reserve), 4 the counters a level clears, 8 the messenger's ring
# words (cached heads, DRAINED, PUBLISHED, LOCK), 16 the leader's words (READY,
# OLEN, DONE, LEN_NOW, OVF_NOW, DONE_NOW). bundle/vertex-old is a556f3a.
#   run (carry ["bundle"]): bash docs/results/h100/racefree/call3.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OUT=$OUT bash "$B/gpu-run.sh" info >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./info.log; rm -f "$OUT/results.tgz"
grep -m1 "H100\|H200" "$OUT/info.log"
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
one() { # label binary mask program graph source [extra...]
    local l=$1 b=$2 m=$3 p=$4 g=$5 s=$6; shift 6
    VERTEX_TILES_PUTS=$m "$B/$b" "$p" "$g" --backend gpu --kernel tiles --source "$s" --json "$@" \
        2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%-4s %-6s %-16s %7s %8.3f ms rounds %5s validated %s" % (sys.argv[1], sys.argv[2],
      sys.argv[3], sys.argv[4], d["time_s"] * 1e3, d["rounds"], d.get("validated")))' "$l" "$p" "$g" "$s"
}
{
    for r in 1 2; do
        for p in widest sssp; do
            one old vertex-old 0 "$p" grid:1000x1000 500500
            for m in 31 0 1 2 4 8 16 30 29 27 23 15; do
                v=(); [ "$r" = 1 ] && v=(--validate)
                one "m$m" vertex "$m" "$p" grid:1000x1000 500500 "${v[@]}"
            done
        done
        for m in 31 0 15 23; do one "m$m" vertex "$m" widest grid:2000x1000 0; done
        one old vertex-old 0 widest grid:2000x1000 0
    done
} 2>&1 | tee "$OUT/masks.log"
{
    for m in 31 0 30 29 27 23 15; do
        for p in bfs sssp; do
            echo "== racecheck mask $m $p grid:60x40"
            VERTEX_TILES_PUTS=$m "$SAN" --tool racecheck "$B/vertex" "$p" grid:60x40 --backend gpu \
                --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle|rror|Race reported|and (Read|Write) access"
        done
    done
} 2>&1 | tee "$OUT/race-masks.log"
ls "$OUT"
