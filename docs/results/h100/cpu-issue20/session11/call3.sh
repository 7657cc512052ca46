#!/usr/bin/env bash
# Issue 20, session 11, call 3: the kept thread pool for the asynchronous engines plus the in-place read-out
# (`AtomicState::into_values`) against fresh scoped threads and the copy (vertex-old, call 2's old build), SSSP on the 1000²
# grid, bench-cpu (both sides verified), alternating processes; then the bulk
# engine's setup/loop/read-out profile at 16 threads, Δ 512.
cd "$(dirname "$0")"
B=${B:-$PWD}
for f in vertex vertex-old; do [ -f "$B/$f.gz" ] && gunzip -c "$B/$f.gz" > /tmp/$f && chmod +x /tmp/$f; done
for rep in 1 2 3; do
  for bin in vertex-old vertex; do
    echo "== rep $rep $bin"
    /tmp/$bin bench-cpu --gapbs "$B/gapbs" --out "$OUT/$bin-r$rep" \
      --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 4 --trials 3 \
      --deltas 128,256,512,1024 > /tmp/log.txt 2>&1 || tail -5 /tmp/log.txt
    python3 - "$OUT/$bin-r$rep/cpu-sssp-grid-1000x1000.json" <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
print('sweep', [(d,round(a*1e3,1),round(b*1e3,1)) for d,a,b in j['delta_sweep']])
for p in j['points']:
    print(p['threads'], 'gapbs', round(p['gapbs']*1e3,1), 'ours', round(p['ours_best']*1e3,1), p['ours_best_schedule'], 'ratio %.3f'%p['ratio'])
P
  done
done
for bin in vertex-old vertex; do
  echo "== profile $bin"
  VERTEX_DELTA_PROFILE=1 /tmp/$bin bench-cpu --gapbs "$B/gapbs" --out /tmp/prof \
    --work /tmp/bc --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 1 --trials 3 --deltas 512 2>&1 | grep "delta profile:" | head -6
done
