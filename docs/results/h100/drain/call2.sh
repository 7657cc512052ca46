#!/usr/bin/env bash
# One-block rounds prefetch the row of every vertex they append (guessed from
# the appending vertex's row and the mean degree): vertex-old (092874b) against
# this build, alternately; then the sanitizers (gpu-run.sh ab).
set -u
export AB_GRAPHS="grid:1000x1000 grid:2000x1000" AB_PROGRAMS="bfs sssp widest" AB_REPEAT=3
bash bundle/gpu-run.sh ab
cd bundle
for p in bfs sssp; do for b in vertex-old vertex; do
    echo "== $b $p grid:4000x4000"
    ./$b $p grid:4000x4000 --backend gpu --kernel resident 2>&1 | grep -E "^  (time|oracle)|rror"
done; done
