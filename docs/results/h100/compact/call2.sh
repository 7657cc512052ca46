# Issue 19: subrounds (buckets a tile relaxes per round) and tiles per SM, compact vs ids.
cd bundle
V=./vertex
show() { grep -E "tiles  |time|oracle|rror|tiles profile"; }
for k in bfs sssp; do
  for o in compact ids; do
    for s in 1 2 4 8 16 64; do
      echo "== $k grid:1000x1000 order=$o subrounds=$s"
      VERTEX_TILES_ORDER=$o VERTEX_TILES_SUBROUNDS=$s $V $k grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1 | show
    done
  done
  for p in 2 4; do
    for s in 1 8; do
      echo "== $k grid:1000x1000 order=compact per_sm=$p subrounds=$s"
      VERTEX_TILES_PER_SM=$p VERTEX_TILES_SUBROUNDS=$s $V $k grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1 | show
    done
  done
  for s in 1 8; do
    echo "== $k profile compact subrounds=$s"
    VERTEX_TILES_PROFILE=1 VERTEX_TILES_SUBROUNDS=$s $V $k grid:1000x1000 --backend gpu --kernel tiles 2>&1 | show
  done
done
