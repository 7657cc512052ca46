#!/bin/bash
# call: one-block rounds issue four edges' atomics before reading any (vertex) against the shared-memory queue build (vertex-old); then bench gap on the grid and urand
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
for b in vertex-old vertex; do run ./$b widest grid:1000x1000 --backend gpu --kernel resident --validate; done
for b in vertex-old vertex; do run ./$b bfs grid:4000x4000 --backend gpu --kernel resident; done
run ./vertex sssp grid:4000x4000 --backend gpu --kernel resident --validate
SAN=compute-sanitizer
for t in memcheck racecheck; do
 for p in bfs sssp; do
  echo "== $t $p"; $SAN --tool $t ./vertex $p grid:60x40 --backend gpu --kernel resident --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -5
 done
done
./vertex bench gap grid:1000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --out $OUT/gap --work /tmp/gw --label grid-after 2>&1 | tail -8
./vertex bench gap uniform:1048576:16777216 --gapbs gapbs --threads 16 --kernels sssp --out $OUT/gap --work /tmp/gw --label sssp-urand20 2>&1 | tail -6
