# Issue 20, session 10, call 3: bulk Δ-stepping's phase profile on the 16-core
# host (VERTEX_DELTA_PROFILE=1, build 04c1656 + the profile).
cd bundle && export VERTEX_DELTA_PROFILE=1
for t in 16 8 4; do
  echo "=== threads $t"
  timeout 170 ./vertex bench-cpu --gapbs ./gapbs --bfs= --pr= --sssp grid:1000x1000 --threads $t \
    --roots 4 --trials 3 --deltas 64,256,512 --out $OUT/bc$t --work /tmp/bcw 2>&1 >/dev/null \
    | grep -v "^\s*$" | grep -E "delta profile|Δ|ratio|ours|gapbs"
done
