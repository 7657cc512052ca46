#!/usr/bin/env bash
# Tiles with 64-bit states on the H100: the candidate ring beside the message word (issue 19), build 182d300.
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
for g in grid:1000x1000 grid:300x200; do
  for k in tiles auto; do
    out=$(timeout 60 ./vertex sssp $g --weights 1..2000000000 --backend gpu --kernel $k --validate 2>&1)
    echo "sssp64 $g $k: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") | $(grep -E '^  (states|kernel) ' <<<"$out" | tr -s ' ' | tr '\n' ' ' | cut -c1-140)"
  done
done
out=$(VERTEX_TILES_RING=2 timeout 60 ./vertex sssp grid:300x200 --weights 1..2000000000 --backend gpu --kernel tiles --validate 2>&1)
echo "sssp64 ring2 grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out")"
for tool in memcheck racecheck; do
  timeout 120 "$SAN" --tool $tool --error-exitcode 3 ./vertex sssp grid:60x40 --weights 1..2000000000 --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "$tool sssp64 grid:60x40: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log)"
done
