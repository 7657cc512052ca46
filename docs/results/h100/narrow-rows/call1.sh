# Issue 19: the tiled kernel's shared counters updated once per group of
# lanes (the round's lowest order: `redux.sync.min`; the bucket list's length:
# ballots, one atomic per warp) against one atomic per lane (vertex-old, 4d10b3c's kernels).
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
show() { grep -E "tiles  |time   |oracle|rror|profile"; }
for rep in 1 2; do
  for b in vertex-old vertex; do
    for k in sssp bfs widest; do
      for g in grid:1000x1000 grid:2000x1000; do
        echo "== $b $k $g"
        ./$b $k $g --backend gpu --kernel tiles --validate 2>&1 | show
      done
    done
    echo "== $b sssp kron:16"; ./$b sssp kron:16 --backend gpu --kernel tiles --validate 2>&1 | show
    echo "== $b cc grid:1000x1000"; ./$b cc grid:1000x1000 --algorithm label --backend gpu --kernel tiles --validate 2>&1 | show
  done
done
for b in vertex-old vertex; do
  echo "== $b sssp profile"; VERTEX_TILES_PROFILE=1 ./$b sssp grid:1000x1000 --backend gpu --kernel tiles 2>&1 | show
  echo "== $b bfs profile"; VERTEX_TILES_PROFILE=1 ./$b bfs grid:1000x1000 --backend gpu --kernel tiles 2>&1 | show
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
for tool in memcheck racecheck synccheck; do
  for k in sssp bfs; do
    echo "== $tool $k grid:120x90"
    timeout 100 $SAN --tool $tool ./vertex $k grid:120x90 --backend gpu --kernel tiles --validate 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|oracle" | head -3
  done
done
