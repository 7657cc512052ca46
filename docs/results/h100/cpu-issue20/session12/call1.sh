#!/usr/bin/env bash
# Issue 20, session 12, call 1: the asynchronous engines' staged prefetches on the
# host: VERTEX_PREFETCH_MODE 0 (staged, as committed), 1 (none), 2 (cells with write
# intent), SSSP grid 1000², threads 1,8,16, alternating processes.
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
for rep in 1 2; do
  for m in 0 1 2; do
    echo "== rep $rep mode $m"
    VERTEX_PREFETCH_MODE=$m /tmp/vertex bench-cpu --gapbs "$B/gapbs" --out "$OUT/m$m-r$rep" \
      --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 1,8,16 --roots 4 --trials 3 \
      --deltas 512 > /tmp/log.txt 2>&1 || tail -5 /tmp/log.txt
    python3 - "$OUT/m$m-r$rep/cpu-sssp-grid-1000x1000.json" <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
for p in j['points']:
    print(p['threads'], 'gapbs', round(p['gapbs']*1e3,1), 'ours', round(p['ours_best']*1e3,1), p['ours_best_schedule'], 'ratio %.3f'%p['ratio'], [(n[:22],round(t*1e3,1)) for n,t in p['ours']])
P
  done
done 2>&1 | tee "$OUT/call1.log"
