#!/usr/bin/env bash
# Issue 20, session 11, call 6: bulk delta-stepping's frontier split evenly up to
# VERTEX_DELTA_EVEN ids per worker (64 = the cursor above workers × 64, as
# before; 512; 4096) on the 1000² grid, SSSP at 8 and 16 threads, alternating
# processes, bench-cpu (both sides verified).
cd "$(dirname "$0")"
B=${B:-$PWD}
for rep in 1 2; do
  for even in 64 512 4096; do
    echo "== rep $rep even $even"
    VERTEX_DELTA_EVEN=$even "$B/vertex" bench-cpu --gapbs "$B/gapbs" --out "$OUT/e$even-r$rep" \
      --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 8,16 --roots 4 --trials 3 \
      --deltas 256,512 > /tmp/log.txt 2>&1 || tail -5 /tmp/log.txt
    python3 - "$OUT/e$even-r$rep/cpu-sssp-grid-1000x1000.json" <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
print('sweep', [(d,round(a*1e3,1),round(b*1e3,1)) for d,a,b in j['delta_sweep']])
for p in j['points']:
    print(p['threads'], 'gapbs', round(p['gapbs']*1e3,1), 'ours', round(p['ours_best']*1e3,1), p['ours_best_schedule'], 'ratio %.3f'%p['ratio'], [(n[:22],round(t*1e3,1)) for n,t in p['ours']])
P
  done
done 2>&1 | tee "$OUT/call6.log"
