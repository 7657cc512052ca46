# Issue 20: A/B of the kept pool (vertex) against per-run threads (vertex-old),
# alternating three times: bench-cpu's SSSP Δ sweep (bulk Δ-stepping, first root,
# median of 5) at 16 and 8 threads, grid 1000², gapbs alongside each time.
set -u
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
for rep in 1 2 3; do
  for b in vertex-old vertex; do
    for t in 16 8; do
      echo "== rep $rep $b threads $t"
      ./$b bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads $t --roots 1 \
          --trials 5 --deltas 64,256,512 --work /tmp/bw --out /tmp/ab 2>&1 | grep -E "Δ [0-9]+:"
    done
  done
done
