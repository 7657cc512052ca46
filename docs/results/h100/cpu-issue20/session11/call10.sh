#!/usr/bin/env bash
# Issue 20, session 11, call 10: BFS push levels that skip the found vertices'
# degrees when a bound proves no switch (vertex, 99580bb) against the
# session's previous build (vertex-old, 768503c), alternating processes,
# bench-cpu BFS on the 1000² grid (two rounds) and Kronecker 20 (one), 1–16 threads.
cd "$(dirname "$0")"
B=${B:-$PWD}
for f in vertex vertex-old; do gunzip -c "$B/$f.gz" > /tmp/$f && chmod +x /tmp/$f; done
for run in "grid:1000x1000 1" "grid:1000x1000 2" "kron:20 1"; do
  set -- $run
  for bin in vertex-old vertex; do
    echo "== $1 round $2 $bin"
    /tmp/$bin bench-cpu --gapbs "$B/gapbs" --out "$OUT/$bin-${1%%:*}-$2" --work /tmp/bc \
      --bfs "$1" --sssp= --pr= --threads 1,2,4,8,16 --roots 4 --trials 3 > /tmp/log.txt 2>&1 || tail -5 /tmp/log.txt
    python3 - "$OUT/$bin-${1%%:*}-$2"/cpu-bfs-*.json <<'P'
import json,sys
j=json.load(open(sys.argv[1]))['job']
print(' '.join('%d:%.2f(%.1f/%.1f)'%(p['threads'],p['ratio'],p['ours_best']*1e3,p['gapbs']*1e3) for p in j['points']))
P
  done
done 2>&1 | tee "$OUT/call10.log"
