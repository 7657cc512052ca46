#!/usr/bin/env bash
# A device fence after a lane's posts (pushing the messages out before the pass's barrier), against 1490570 (vertex-old); three rounds (ms), every run validated.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(timeout 60 ./$b $run --backend gpu --validate 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out") $(grep -c 'oracle .*agrees' <<<"$out")"
    done
    echo "$line"
  done
done
