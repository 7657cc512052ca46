# Issue 19: GPU SSSP with 32-bit distances where exact, and tiles whose rows
# only fit narrow (ids within the tile, halved weights) copied so (vertex)
# against 4d10b3c (vertex-old: 64-bit distances, rows read from the graph).
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
show() { grep -E "tiles  |time   |oracle|rror|profile|distances|kernel  "; }
for rep in 1 2; do
  for b in vertex-old vertex; do
    for g in grid:1000x1000 grid:2000x1000 kron:20; do
      echo "== $b sssp $g"; ./$b sssp $g --backend gpu --validate 2>&1 | show
    done
    for k in bfs widest; do echo "== $b $k grid:1000x1000"; ./$b $k grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1 | show; done
    echo "== $b sssp grid:1000x1000 resident"; ./$b sssp grid:1000x1000 --backend gpu --kernel resident --validate 2>&1 | show
    echo "== $b sssp kron:22 direction"; ./$b sssp kron:22 --backend gpu --validate 2>&1 | show
  done
done
for b in vertex-old vertex; do
  echo "== $b sssp profile"; VERTEX_TILES_PROFILE=1 ./$b sssp grid:1000x1000 --backend gpu --kernel tiles 2>&1 | show
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
for tool in memcheck racecheck synccheck; do
  echo "== $tool sssp grid:1000x1000 tiles (narrow rows)"
  timeout 150 $SAN --tool $tool ./vertex sssp grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|oracle|tiles  " | head -4
done
