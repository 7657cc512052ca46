# Issue 20: work counts of bulk Δ-stepping (forced at every thread count with
# VERTEX_LOCKSTEP_MAX, a measuring build) against soft obim, grid 1000², with
# gapbs-count's counts at the same thread counts.
set -u
cd bundle
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for d in 64 512; do
  echo "== delta $d bulk"
  VERTEX_LOCKSTEP_MAX=64 ./vertex compare sssp grid:1000x1000 --schedules obim --threads 1,4,8,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
  echo "== delta $d soft"
  ./vertex compare sssp grid:1000x1000 --schedules obim --threads 4,8,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
  for t in 4 16; do
    echo "== delta $d gapbs-count threads $t"; OMP_NUM_THREADS=$t ./gapbs-count -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 3 2>&1 | grep -E "took|Average" | tail -2
  done
done
