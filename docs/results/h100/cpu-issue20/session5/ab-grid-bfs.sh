#!/usr/bin/env bash
# Grid BFS on the CPU, 1 and 2 threads: the build before the cpu22 merge
# (vertex-old, 092874b) against this one, alternately, same source.
cd bundle
for t in 1 2; do for rep in 1 2 3 4; do for b in vertex-old vertex; do
    echo -n "t=$t $b "
    ./$b bfs grid:1000x1000 --backend cpu --threads $t --schedule sync --source 500500 2>&1 | grep -E "^  time"
done; done; done
