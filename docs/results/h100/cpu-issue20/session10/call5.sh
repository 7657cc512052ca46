# Issue 20, session 10, call 5: how big must a worker's bin be before it stops
# fusing for a waiting worker? A measuring build reads VERTEX_FUSE_SHARE (0:
# always stop, as call 4; 1000: never, the old engine). 16-core host.
cd bundle
for t in 16 8; do
  for share in 1000 0 32 128 512 1000 128; do
    echo "=== threads $t share $share"
    VERTEX_FUSE_SHARE=$share timeout 100 ./vertex bench-cpu --gapbs ./gapbs --bfs= --pr= --sssp grid:1000x1000 --threads $t \
      --roots 4 --trials 3 --deltas 64,256,512 --out /tmp/bc --work /tmp/bcw 2>&1 >/dev/null \
      | grep -v "^\s*$" | grep -E "Δ (64|256|512):|threads: ours"
  done
done
