# Issue 20: bulk Δ-stepping's fusion buffer kept across passes (vertex) against
# 4d10b3c (vertex-old), three alternations on the host, 8 and 16 threads.
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
for rep in 1 2 3; do
  for b in vertex-old vertex; do
    echo "== $b"
    ./$b bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 8,16 --roots 1 --trials 5 --deltas 64,256,512 --work /tmp/bw --out /tmp/bc-$b 2>&1 | grep -E "Δ [0-9]+:|sssp  "
  done
done
