# Issue 20: bulk Δ-stepping at 16 threads with every worker pinned (bench-cpu
# --pin) against unpinned, grid 1000², bench-cpu's sweep (first root, median of
# 5), twice; gapbs alongside in each run.
set -u
cd bundle
for rep in 1 2; do
  for pin in "" "--pin"; do
    echo "== rep $rep ${pin:-unpinned}"
    ./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 1 \
        --trials 5 --deltas 64,256,512 --work /tmp/bw --out /tmp/p $pin 2>&1 | grep -E "Δ [0-9]+:"
  done
done
