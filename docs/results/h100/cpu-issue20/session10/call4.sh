# Issue 20, session 10, call 4: bulk Δ-stepping's bin fusion stops when another
# worker waits at the barrier (vertex) against the build before it (vertex-old,
# 04c1656 + VERTEX_DELTA_PROFILE), alternating, on the 16-core host.
cd bundle && gunzip -f vertex-old.gz && chmod +x vertex-old
export VERTEX_DELTA_PROFILE=1
for t in 16 8 4; do
  for round in 1 2; do
    for b in vertex-old vertex; do
      echo "=== threads $t $b round $round"
      timeout 100 ./$b bench-cpu --gapbs ./gapbs --bfs= --pr= --sssp grid:1000x1000 --threads $t \
        --roots 4 --trials 3 --deltas 64,256,512 --out $OUT/bc-$b-$t-$round --work /tmp/bcw 2>&1 >/dev/null \
        | grep -v "^\s*$" | grep -E "delta profile|Δ (64|256|512):|threads: ours|gapbs .* with"
    done
  done
done
