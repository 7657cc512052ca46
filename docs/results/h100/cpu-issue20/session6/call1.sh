#!/usr/bin/env bash
# Issue 20's weakest cells on the 16-core host, repeated to see the host's
# spread: bench-cpu BFS grid 1000² at 1 and 2 threads (three times), then SSSP
# grid 1000² at 4 and 8 threads (twice). Both sides verified each time.
set -u
cd bundle
nproc; lscpu | grep -E "Model name|Socket|NUMA node\(s\)" | head -3
for rep in 1 2 3; do
    echo "== bfs rep $rep"
    timeout 150 ./vertex bench-cpu --gapbs gapbs --bfs grid:1000x1000 --sssp= --pr= --threads 1,2 \
        --roots 4 --trials 5 --work /tmp/bw --out "$OUT/bfs-rep$rep" 2>&1 | grep -A12 "ratios ours" | grep -vE "^\{"
done
for rep in 1 2; do
    echo "== sssp rep $rep"
    timeout 150 ./vertex bench-cpu --gapbs gapbs --bfs= --sssp grid:1000x1000 --pr= --threads 4,8 \
        --roots 4 --trials 3 --deltas 32,64,128 --work /tmp/bw --out "$OUT/sssp-rep$rep" 2>&1 | grep -A12 "ratios ours" | grep -vE "^\{"
done
