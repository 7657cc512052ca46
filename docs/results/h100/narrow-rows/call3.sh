# Issue 19 after 32-bit GPU distances and narrow rows: the tiles' Δ for SSSP on
# the 1000² grid, then bench gap (GPU vs gapbs on 16 threads, both verified;
# SSSP at gapbs's best Δ on this grid, 512).
cd bundle
for d in 100 200 400 800; do
  for rep in 1 2; do
    echo "== sssp tiles delta $d"; ./vertex sssp grid:1000x1000 --backend gpu --kernel tiles --delta $d --validate 2>&1 | grep -E "time   |oracle"
  done
done
./vertex bench gap grid:1000x1000 --gapbs gapbs --threads 16 --kernels sssp,bfs --delta 512 --out $OUT/gap --work /tmp/gw --label narrow-rows 2>&1 | tail -12
