#!/bin/bash
# call: outbox halves without the post barrier, tails read early (vertex) against the profiled build (vertex-old)
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
export VERTEX_TILES_PROFILE=1
run() { echo "== $*"; "$@" 2>&1 | grep -E "^  (kernel|tiles|time|oracle)|rror|profile" ; }
for p in bfs sssp; do
 for b in vertex-old vertex vertex-old vertex; do
  run ./$b $p grid:1000x1000 --backend gpu --kernel tiles $( [ $b = vertex ] && echo --validate )
 done
done
run ./vertex-old widest grid:1000x1000 --backend gpu --kernel tiles
run ./vertex widest grid:1000x1000 --backend gpu --kernel tiles --validate
run ./vertex-old cc grid:1000x1000 --algorithm label --backend gpu --kernel tiles
run ./vertex cc grid:1000x1000 --algorithm label --backend gpu --kernel tiles --validate
run ./vertex-old bfs grid:2000x1000 --backend gpu --kernel tiles
run ./vertex bfs grid:2000x1000 --backend gpu --kernel tiles --validate
run ./vertex-old sssp grid:2000x1000 --backend gpu --kernel tiles
run ./vertex sssp grid:2000x1000 --backend gpu --kernel tiles --validate
run ./vertex bfs grid:1000x1000 --backend gpu --kernel resident
unset VERTEX_TILES_PROFILE
SAN=compute-sanitizer
for t in memcheck racecheck synccheck; do
 for p in bfs sssp; do
  echo "== $t $p"; $SAN --tool $t ./vertex $p grid:120x90 --backend gpu --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -5
 done
done
