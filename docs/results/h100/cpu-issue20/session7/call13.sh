# Issue 20: grid BFS at 2 threads: how often the level barrier's waiters yield or
# sleep (GNU time's context switches over 21 runs), and the barrier's spin count
# (VERTEX_BARRIER_SPINS, a measuring build: 2,000 by default), against gapbs.
set -u
cd bundle
./vertex bench-cpu --gapbs gapbs --bfs grid:1000x1000 --sssp= --pr= --threads 1 --roots 1 \
    --trials 1 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
T='%e s elapsed, %U user, %S sys, %c involuntary, %w voluntary switches'
for rep in 1 2; do
  for s in 2000 20 200000 2000000; do
    echo "== rep $rep spins $s, 2 threads, 1 and 21 runs"
    VERTEX_BARRIER_SPINS=$s /usr/bin/time -f "$T" ./vertex compare bfs grid:1000x1000 --schedules sync --threads 2 --repeats 1 2>&1 | grep -E "^sync|elapsed"
    VERTEX_BARRIER_SPINS=$s /usr/bin/time -f "$T" ./vertex compare bfs grid:1000x1000 --schedules sync --threads 2 --repeats 21 2>&1 | grep -E "^sync|elapsed"
  done
  echo "== rep $rep gapbs 2 threads, 1 and 21 runs"
  OMP_NUM_THREADS=2 /usr/bin/time -f "$T" ./gapbs/bfs -f /tmp/bw/grid-1000x1000.sg -r 0 -n 1 2>&1 | grep -E "Average|elapsed"
  OMP_NUM_THREADS=2 /usr/bin/time -f "$T" ./gapbs/bfs -f /tmp/bw/grid-1000x1000.sg -r 0 -n 21 2>&1 | grep -E "Average|elapsed"
done
