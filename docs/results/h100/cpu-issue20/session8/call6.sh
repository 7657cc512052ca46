# Issue 20, a measuring build (not kept as is): bulk Δ-stepping at 16 threads on
# the grid with the fusion buffer kept across passes, and its knobs from the
# environment: grab size, fusion threshold, prefetch. Against vertex-old (4d10b3c).
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
run() { echo "== $*"; env "$@" bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 1 --trials 5 --deltas 64,512 --work /tmp/bw --out /tmp/bc 2>&1 | grep -E "Δ [0-9]+:"; }
for rep in 1 2; do
  run ./vertex-old
  run ./vertex
  run VERTEX_BULK_FUSE=0 ./vertex
  run VERTEX_BULK_FUSE=100 ./vertex
  run VERTEX_BULK_FUSE=10000 ./vertex
  run VERTEX_BULK_GRAIN=16 ./vertex
  run VERTEX_BULK_GRAIN=256 ./vertex
  run VERTEX_BULK_NOPREFETCH=1 ./vertex
done
