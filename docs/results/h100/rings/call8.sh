#!/usr/bin/env bash
# Tiles with message rings: block size and SSSP bucket width sweeps (issue 19), build 182d300.
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== block size (VERTEX_TILES_BLOCK), ms, two rounds"
for i in 1 2; do
  for blk in 128 256 512 1024; do
    line="$i block $blk"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:2000x1000"; do
      out=$(VERTEX_TILES_BLOCK=$blk timeout 60 ./vertex $run --backend gpu --kernel tiles 2>&1)
      line="$line | $run: $(t "$out")"
    done
    echo "$line"
  done
done
echo "== SSSP bucket width (--delta), grid 1000², ms, two rounds"
out=$(./vertex sssp grid:1000x1000 --backend gpu --kernel auto 2>&1); echo "auto: $(t "$out") $(grep -iE 'delta|Δ' <<<"$out" | head -2 | tr -s ' ')"
for i in 1 2; do
  line="$i"
  for d in 100 200 300 400 600 800 1200; do
    out=$(timeout 60 ./vertex sssp grid:1000x1000 --backend gpu --kernel tiles --delta $d 2>&1)
    line="$line | Δ$d: $(t "$out")"
  done
  echo "$line"
done
