# Issue 19: tiles cut from a compact renumbering (default) vs the graph's own ids.
cd bundle
nvidia-smi -L
V=./vertex
show() { grep -E "^(sssp|bfs|widest|cc) on|kernel|tiles |time|oracle|rror"; }
for g in grid:1000x1000 grid:2000x1000; do
  for k in sssp bfs widest; do
    for o in compact ids compact; do
      echo "== $k $g --kernel tiles VERTEX_TILES_ORDER=$o"
      /usr/bin/time -f "wall %e s" env VERTEX_TILES_ORDER=$o $V $k $g --backend gpu --kernel tiles --validate 2>&1 | show
    done
  done
  echo "== bfs $g resident"; $V bfs $g --backend gpu --kernel resident --validate 2>&1 | show
  echo "== sssp $g auto"; $V sssp $g --backend gpu --validate 2>&1 | show
done
echo "== sssp grid:1600x1600 tiles compact"; $V sssp grid:1600x1600 --backend gpu --kernel tiles --validate 2>&1 | show
echo "== bfs grid:1600x1600 tiles compact"; $V bfs grid:1600x1600 --backend gpu --kernel tiles --validate 2>&1 | show
echo "== cc grid:1000x1000 tiles"; $V cc grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1 | show
$V bench gap grid:1000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --out $OUT/gap --work /tmp/gw --label compact-tiles 2>&1 | tail -25
