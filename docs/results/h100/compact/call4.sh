# Issue 19: the tiled kernel's bucket width on the 1000² grid (auto: Δ 200), both orders;
# the resident kernel's for comparison.
cd bundle
V=./vertex
show() { grep -E "kernel|tiles  |time|oracle|rror"; }
for o in ids compact; do
  for d in 100 200 400 800 1600 3200 12800 1000000; do
    echo "== sssp grid:1000x1000 tiles order=$o delta=$d"
    VERTEX_TILES_ORDER=$o $V sssp grid:1000x1000 --backend gpu --kernel tiles --delta $d --validate 2>&1 | show
  done
  for d in 2 4 16; do
    echo "== bfs grid:1000x1000 tiles order=$o delta=$d"
    VERTEX_TILES_ORDER=$o $V bfs grid:1000x1000 --backend gpu --kernel tiles --delta $d --validate 2>&1 | show
  done
done
for d in 200 800 3200; do
  echo "== sssp grid:1000x1000 resident delta=$d"
  $V sssp grid:1000x1000 --backend gpu --kernel resident --delta $d --validate 2>&1 | show
done
