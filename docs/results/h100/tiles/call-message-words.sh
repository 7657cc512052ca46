#!/bin/bash
# call: tiles with message words (new) against the mailbox tiles (vertex-old), same machine
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
run() { echo "== $*"; "$@" 2>&1 | grep -E "^  (kernel|tiles|time|oracle)|rror" ; }
for g in grid:1000x1000 grid:2000x1000; do
 for p in bfs sssp; do
  for b in vertex-old vertex; do
   run ./$b $p $g --backend gpu --kernel tiles --validate
   run ./$b $p $g --backend gpu --kernel tiles
  done
  run ./vertex $p $g --backend gpu --kernel resident
 done
done
for p in widest cc; do for b in vertex-old vertex; do run ./$b $p grid:1000x1000 --backend gpu --kernel tiles --validate $( [ $p = cc ] && echo --algorithm label ); done; done
run ./vertex bfs grid:100x10000 --backend gpu --kernel tiles --validate
run ./vertex-old bfs grid:100x10000 --backend gpu --kernel tiles
run ./vertex sssp kron:16 --backend gpu --kernel tiles --validate
SAN=compute-sanitizer
for t in memcheck racecheck; do
 for p in bfs sssp; do
  echo "== $t $p"; $SAN --tool $t ./vertex $p grid:120x90 --backend gpu --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -5
 done
done
echo "== synccheck"; $SAN --tool synccheck ./vertex sssp grid:120x90 --backend gpu --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle" | head
echo "== memcheck cc"; $SAN --tool memcheck ./vertex cc grid:120x90 --algorithm label --backend gpu --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle" | head
