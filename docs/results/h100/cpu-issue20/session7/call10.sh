# Issue 20: the kept pool (vertex, final build) against per-run threads
# (vertex-old) on the other asynchronous runs: SSSP Kronecker 20 (soft obim),
# BFS Kronecker 20 under the async schedule (work stealing), SSSP grid 1000²;
# 4 and 16 threads, best of 5, alternating twice.
set -u
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
for rep in 1 2; do
  for b in vertex-old vertex; do
    echo "== rep $rep $b sssp kron:20 obim"
    ./$b compare sssp kron:20 --schedules obim --threads 4,16 --repeats 5 2>&1 | grep -E "^obim"
    echo "== rep $rep $b bfs kron:20 async"
    ./$b compare bfs kron:20 --schedules async --threads 4,16 --repeats 5 2>&1 | grep -E "^async"
    echo "== rep $rep $b sssp grid:1000x1000 obim"
    ./$b compare sssp grid:1000x1000 --schedules obim --threads 4,16 --repeats 5 2>&1 | grep -E "^obim"
  done
done
