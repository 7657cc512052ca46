#!/usr/bin/env bash
# Session 9, call 6: auto picks tiles for label propagation (CC) on high-diameter graphs
# without hubs. vertex-old = call 5's build (auto: resident for CC), vertex = this one.
set -u
B=$(cd "$(dirname "$0")" && pwd)
gunzip -c "$B/vertex-old.gz" > /tmp/vertex-old && chmod +x /tmp/vertex-old
python3 "$B/odd-graphs.py" /tmp/odd >/dev/null
for rep in 1 2; do
  for g in grid:1000x1000 grid:2000x1000 /tmp/odd/chain.wel; do
    for b in /tmp/vertex-old "$B/vertex"; do
      v=""; [ "$(basename $b)" = vertex ] && v=--validate
      echo "cc $g auto $(basename $b): $("$b" cc $g --algorithm label --backend gpu $v 2>&1 | grep -E '^  (kernel|time|oracle)|rror' | tr -s ' ' | tr '\n' ' ')"
    done
  done
done
SHAPES_PROGRAMS="cc sssp" SHAPES_KERNELS="auto" bash "$B/gpu-run.sh" shapes > /tmp/shapes.out 2>&1
grep -c "^ok" /tmp/gpu-out/shapes.log
grep -v "^ok" /tmp/gpu-out/shapes.log | grep -v "not a valid u32" | head -30
cp /tmp/gpu-out/shapes.log "$OUT/shapes-call6.log"
