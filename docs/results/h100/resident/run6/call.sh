#!/bin/bash
# call: resident one-block rounds keep their queue in shared memory and combine without a read first (vertex) against the previous build (vertex-old)
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
run() { echo "== $*"; "$@" 2>&1 | grep -E "^  (kernel|time|oracle)|rror" ; }
for g in grid:1000x1000 grid:2000x1000; do
 for p in bfs sssp widest; do
  for b in vertex-old vertex vertex-old vertex; do
   run ./$b $p $g --backend gpu --kernel resident $( [ $b = vertex ] && echo --validate )
  done
 done
done
for b in vertex-old vertex; do run ./$b cc grid:1000x1000 --algorithm label --backend gpu --kernel resident --validate; done
for b in vertex-old vertex vertex-old vertex; do run ./$b bfs grid:4000x4000 --backend gpu --kernel resident; done
run ./vertex bfs grid:4000x4000 --backend gpu --kernel resident --validate
for b in vertex-old vertex; do run ./$b sssp grid:4000x4000 --backend gpu --kernel resident; done
for b in vertex-old vertex; do run ./$b bfs kron:20 --backend gpu --kernel resident --validate; done
SAN=compute-sanitizer
for t in memcheck racecheck synccheck; do
 for p in bfs sssp; do
  echo "== $t $p"; $SAN --tool $t ./vertex $p grid:60x40 --backend gpu --kernel resident --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -5
 done
done
echo "== memcheck kron"; $SAN --tool memcheck ./vertex sssp kron:10 --backend gpu --kernel resident --validate 2>&1 | grep -E "SUMMARY|oracle" | head
