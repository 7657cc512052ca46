# Issue 20: bulk Δ-stepping at 16 threads on the grid (bench-cpu's Δ sweep runs
# it at the most threads), with the spinning barrier's spin count raised
# (VERTEX_BARRIER_SPINS, a measuring build) and the relax walk's prefetches off.
set -u
cd bundle
for rep in 1 2; do
  for env in "X=1" "VERTEX_BARRIER_SPINS=200000" "VERTEX_PREFETCH=0" "VERTEX_BARRIER_SPINS=200000 VERTEX_PREFETCH=0"; do
    echo "== $env"
    env $env ./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 1 \
        --trials 5 --deltas 64,256,512 --work /tmp/bw --out /tmp/x 2>&1 | grep -E "Δ [0-9]+:"
  done
done
