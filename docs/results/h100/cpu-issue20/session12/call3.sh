#!/usr/bin/env bash
# Issue 20, session 12, call 3: how long idle workers spin before they sleep.
# A: as committed (barrier 2,000 pauses then 64 yields then a condvar; obim/steal
# idle: 16 pauses, 48 yields, then 50 µs sleeps). B: barrier 200,000 pauses, idle
# 2,000 pauses then yields to 20,000. C: barrier 20,000, idle 200 / 2,000.
# SSSP grid 1000², threads 8,16, alternating processes, bench-cpu (both verified).
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
run() { # name barrier idle_spins idle_yields rep
  echo "== $1 rep $5"
  VERTEX_BARRIER_SPINS=$2 VERTEX_IDLE_SPINS=$3 VERTEX_IDLE_YIELDS=$4 /tmp/vertex bench-cpu --gapbs "$B/gapbs" \
    --out "$OUT/$1-r$5" --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 8,16 --roots 4 --trials 3 \
    --deltas 256,512 > /tmp/log.txt 2>&1 || tail -5 /tmp/log.txt
  python3 - "$OUT/$1-r$5/cpu-sssp-grid-1000x1000.json" <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
print('sweep', [(d,round(a*1e3,1),round(b*1e3,1)) for d,a,b in j['delta_sweep']])
for p in j['points']:
    print(p['threads'], 'gapbs', round(p['gapbs']*1e3,1), 'ours', round(p['ours_best']*1e3,1), p['ours_best_schedule'], 'ratio %.3f'%p['ratio'], [(n[:22],round(t*1e3,1)) for n,t in p['ours']])
P
}
for rep in 1 2; do
  run A 2000 16 64 $rep
  run B 200000 2000 20000 $rep
  run C 20000 200 2000 $rep
done 2>&1 | tee "$OUT/call3.log"
cd "$OUT" && tar czf json.tgz ./*-r* && rm -rf ./*-r[12]
