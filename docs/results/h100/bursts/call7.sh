#!/usr/bin/env bash
# SSSP bucket width (--delta) on the tiles with groups (build 1490570), grid 1000² from the corner and the centre and 2000×1000, two rounds (ms).
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
for i in 1 2; do
  for d in 100 200 300 400 600 800; do
    line="$i delta=$d"
    for run in "grid:1000x1000" "grid:1000x1000 --source 500500" "grid:2000x1000"; do
      out=$(timeout 60 ./vertex sssp $run --backend gpu --kernel tiles --delta $d 2>&1)
      line="$line | $run: $(t "$out") $(grep -m1 error <<<"$out")"
    done
    echo "$line"
  done
done
out=$(timeout 60 ./vertex sssp grid:1000x1000 --backend gpu 2>&1); echo "auto: $(grep -E '^  kernel' <<<"$out" | cut -c1-160)"
