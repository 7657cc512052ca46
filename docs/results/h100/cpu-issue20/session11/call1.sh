#!/usr/bin/env bash
# Issue 20, session 11, call 1: shared bin fusion (VERTEX_FUSE_SHARE) A/B on the
# 1000² grid, SSSP, bench-cpu (both sides verified), alternating processes.
cd "$(dirname "$0")"
B=${B:-$PWD}
nproc; lscpu | grep -E "Model name" | head -1
export VERTEX_TOPOLOGY=
for rep in 1 2; do
  for share in 0 128 32; do
    echo "== rep $rep share $share"
    VERTEX_FUSE_SHARE=$share "$B/vertex" bench-cpu --gapbs "$B/gapbs" --out "$OUT/s$share-r$rep" \
      --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 4,8,16 --roots 4 --trials 3 \
      --deltas 128,256,512,1024 2>&1 | grep -v "^ \|^\[\|^{\|^}" | tail -5
    python3 - "$OUT/s$share-r$rep/cpu-sssp-grid-1000x1000.json" <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
print('sweep', [(d,round(a*1e3,1),round(b*1e3,1)) for d,a,b in j['delta_sweep']])
for p in j['points']:
    print(p['threads'], 'gapbs', round(p['gapbs']*1e3,1), 'ours', round(p['ours_best']*1e3,1), p['ours_best_schedule'], 'ratio %.3f'%p['ratio'])
P
  done
done
for share in 0 128; do
  echo "== profile share $share"
  VERTEX_DELTA_PROFILE=1 VERTEX_FUSE_SHARE=$share "$B/vertex" bench-cpu --gapbs "$B/gapbs" --out /tmp/prof \
    --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 1 --trials 3 --deltas 512 2>&1 | grep "delta profile" | head -8
done
