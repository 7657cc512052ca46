# Issue 20: the dissemination barrier (new) against the shared-counter one (old = a4c2871),
# on the H100 machine's 16-core host: barrier latency alone, then the engines that meet at
# it (level-engine BFS, bulk delta-stepping SSSP) on the 1000² grid, best of 5, alternating.
set -u
cd bundle
for b in new old; do xz -d -f vertex-$b.xz; chmod +x vertex-$b; done
cat GIT_REV
./barbench 2,4,8,16
for r in 1 2 3; do
  for b in old new; do
    for s in 846040 483583 285520; do
      ./vertex-$b compare sssp grid:1000x1000 --schedules obim --threads 4,8,16 --delta 64 \
        --repeats 5 --source $s 2>&1 | grep -E "^  obim x" | sed "s/^/$b$r sssp src $s delta 64 /"
      ./vertex-$b compare bfs grid:1000x1000 --schedules sync --threads 4,8,16 \
        --repeats 5 --source $s 2>&1 | grep -E "^  sync x" | sed "s/^/$b$r bfs src $s /"
    done
    ./vertex-$b compare bfs kron:20 --schedules sync --threads 16 --repeats 5 2>&1 \
      | grep -E "^  sync x" | sed "s/^/$b$r bfs kron20 /"
  done
done
