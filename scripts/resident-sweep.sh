#!/usr/bin/env bash
# Issue 19 sweep of the resident kernel's one-block round limit on some graphs,
# BFS and SSSP, every run validated; prints one line per run (ms, rounds by
# width, µs per round). EXTRA adds flags (e.g. EXTRA="--delta 2048").
#   GRAPHS="grid:1000x1000" SMALLS="2048 4096" REPS=2 bash resident-sweep.sh [vertex]
set -uo pipefail
V=${1:-./vertex}
OUTDIR=${OUT:-/tmp}/sweep
mkdir -p "$OUTDIR"
for g in ${GRAPHS:-grid:1000x1000}; do
    for prog in ${PROGS:-bfs sssp}; do
        for small in ${SMALLS:-2048 4096 6144}; do
            for rep in $(seq "${REPS:-2}"); do
                f="$OUTDIR/$prog-${g//[:x]/_}-s$small-$rep.json"
                VERTEX_RESIDENT_SMALL=$small \
                    "$V" "$prog" "$g" --backend gpu --kernel resident --validate --json \
                    ${EXTRA:-} >"$f" 2>"$f.err" || echo "FAIL $prog $g s$small: $(tail -1 "$f.err")"
                python3 - "$f" "$prog $g small $small" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[2], "no JSON:", e); sys.exit(0)
r = d.get("resident") or {}
ms = d["time_s"] * 1e3
rounds = r.get("rounds", 0) or 1
print(f"{sys.argv[2]:45s} {ms:8.2f} ms  rounds {r.get('rounds')} small {r.get('small_rounds')} "
      f"wide {r.get('wide_rounds')} splits {r.get('splits')}  {ms*1e3/rounds:6.2f} us/round  valid {d.get('validated')}")
PY
            done
        done
    done
done
