# Issue 20: per-worker sums in the level engine (new) vs one shared word per sum
# (old = a4c2871), BFS on the 1000² grid and Kronecker 20, best of 5, alternating.
set -u
cd bundle
for b in new old; do xz -d -f vertex-$b.xz; chmod +x vertex-$b; done
cat GIT_REV
for r in 1 2 3; do
  for b in old new; do
    for s in 846040 483583 285520; do
      ./vertex-$b compare bfs grid:1000x1000 --schedules sync --threads 4,8,16 \
          --repeats 5 --source $s 2>&1 | grep -E "^  sync x" | sed "s/^/$b$r bfs src $s /"
    done
    ./vertex-$b compare bfs kron:20 --schedules sync --threads 8,16 --repeats 5 2>&1 \
      | grep -E "^  sync x" | sed "s/^/$b$r bfs kron20 /"
  done
done
