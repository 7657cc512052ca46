#!/bin/bash
# call: one-block rounds with two barriers (append counters by round parity) (vertex) against three (vertex-old)
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
run() { echo "== $*"; "$@" 2>&1 | grep -E "^  (kernel|time|oracle)|rror" ; }
for g in grid:1000x1000 grid:2000x1000; do
 for p in bfs sssp; do
  for b in vertex-old vertex vertex-old vertex; do
   run ./$b $p $g --backend gpu --kernel resident $( [ $b = vertex ] && echo --validate )
  done
 done
done
for b in vertex-old vertex; do run ./$b bfs grid:4000x4000 --backend gpu --kernel resident; done
run ./vertex widest grid:1000x1000 --backend gpu --kernel resident --validate
run ./vertex cc grid:1000x1000 --algorithm label --backend gpu --kernel resident --validate
run ./vertex bfs kron:18 --backend gpu --kernel resident --validate
run ./vertex sssp kron:18 --backend gpu --kernel resident --validate
SAN=compute-sanitizer
for t in memcheck racecheck synccheck; do
 for p in bfs sssp; do
  echo "== $t $p"; $SAN --tool $t ./vertex $p grid:60x40 --backend gpu --kernel resident --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -5
 done
done
echo "== racecheck kron sssp"; $SAN --tool racecheck ./vertex sssp kron:10 --backend gpu --kernel resident --validate 2>&1 | grep -E "SUMMARY|oracle" | head
