# Issue 20: why grid BFS at 2 threads is no faster than at 1 on this host. A lone
# worker stores states plainly; two or more use a locked update. Here one worker
# is forced onto the locked path (VERTEX_LEVEL_LOCKED, a measuring build): how
# much does the locked update cost by itself? Grid 1000² from vertex 0,
# best of 5, alternating three times; gapbs at 1 and 2 threads alongside.
set -u
cd bundle
./vertex bench-cpu --gapbs gapbs --bfs grid:1000x1000 --sssp= --pr= --threads 1 --roots 1 \
    --trials 1 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for rep in 1 2 3; do
  echo "== rep $rep plain 1 thread, then 2 and 4"
  ./vertex compare bfs grid:1000x1000 --schedules sync --threads 1,2,4 --repeats 5 2>&1 | grep -E "^sync"
  echo "== rep $rep locked 1 thread"
  VERTEX_LEVEL_LOCKED=1 ./vertex compare bfs grid:1000x1000 --schedules sync --threads 1 --repeats 5 2>&1 | grep -E "^sync"
  for t in 1 2; do
    echo "== rep $rep gapbs $t"; OMP_NUM_THREADS=$t ./gapbs/bfs -f /tmp/bw/grid-1000x1000.sg -r 0 -n 5 2>&1 | grep Average
  done
done
