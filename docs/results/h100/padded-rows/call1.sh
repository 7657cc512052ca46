#!/usr/bin/env bash
# Issue 19, session 13, call 1: padded rows (ELL) in the resident kernel's one-block
# rounds, against the CSR rows (VERTEX_RESIDENT_ROWS=0), same binary, alternating.
cd "$(dirname "$0")"
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
V=/tmp/vertex
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat GIT_REV
show() { python3 -c "
import json,sys
j=json.load(sys.stdin); r=j.get('resident') or {}
ms=j['time_s']*1e3; rounds=r.get('rounds') or j.get('rounds') or 1
print('  %-10s %8.2f ms rounds %s small %s wide %s  %.2f us/round kernel %s valid %s reached %s' % (sys.argv[1], ms, r.get('rounds'), r.get('small_rounds'), r.get('wide_rounds'), ms*1e3/rounds, j.get('kernel'), j.get('validated'), j.get('reached')))" "$1"; }
{
for G in grid:1000x1000; do
for prog in bfs sssp; do
  for src in 0 500500; do
    echo "== $prog $G source $src --kernel resident"
    for rep in 1 2 3; do
      for rows in 1 0; do
        v=$([ $rep = 1 ] && echo --validate || true)
        VERTEX_RESIDENT_ROWS=$rows $V $prog $G --backend gpu --kernel resident --source $src --json $v 2>/tmp/err.txt | show rows$rows || tail -3 /tmp/err.txt
      done
    done
  done
  echo "== $prog $G source 0, no --kernel (auto)"
  for rows in 1 0; do
    VERTEX_RESIDENT_ROWS=$rows $V $prog $G --backend gpu --source 0 --json 2>/tmp/err.txt | show auto-rows$rows || tail -3 /tmp/err.txt
  done
done
done
echo "== profile, bfs grid 1000² from 0"
for rows in 1 0; do VERTEX_RESIDENT_PROFILE=1 VERTEX_RESIDENT_ROWS=$rows $V bfs grid:1000x1000 --backend gpu --kernel resident --source 0 --json 2>&1 >/dev/null | grep profile; done
echo "== grid 4000² from 0"
for prog in bfs sssp; do
  for rep in 1 2; do
    for rows in 1 0; do
      v=$([ $rep = 1 ] && echo --validate || true)
      VERTEX_RESIDENT_ROWS=$rows timeout 120 $V $prog grid:4000x4000 --backend gpu --kernel resident --source 0 --json $v 2>/tmp/err.txt | show "$prog-rows$rows" || tail -3 /tmp/err.txt
    done
  done
done
} 2>&1 | tee "$OUT/call1.log"
{
echo "== sanitizers (resident, padded rows)"
for tool in memcheck racecheck; do
  for prog in bfs sssp widest cc; do
    for G in grid:60x40 uniform:2000:6000; do
      echo "-- $tool $prog $G"
      timeout 120 compute-sanitizer --tool $tool $V $prog $G --backend gpu --kernel resident --validate 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|validat|rror" | head -4
    done
  done
done
} 2>&1 | tee "$OUT/san.log"
