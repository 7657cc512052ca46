#!/usr/bin/env bash
# Bursts (0 = previous behaviour, 2, 3) with and without the level's block fences (bit 16 of VERTEX_TILES_BURST: an unsafe measuring build), three rounds; racecheck with burst 2.
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
for i in 1 2 3; do
  for b in 0 2 3 65536 65538; do
    line="$i burst=$b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000"; do
      out=$(VERTEX_TILES_BURST=$b timeout 60 ./vertex $run --backend gpu --validate 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c3-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out") $(grep -c 'oracle .*agrees' <<<"$out")"
    done
    echo "$line"
  done
done
for b in 2 65536; do for p in bfs sssp; do VERTEX_TILES_BURST=$b VERTEX_TILES_PROFILE=1 timeout 60 ./vertex $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [burst $b $p]"; done; done
echo "== sanitizers (burst 2)"
for run in "bfs grid:60x40" "sssp grid:60x40" "widest grid:60x40"; do
  VERTEX_TILES_BURST=2 timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  VERTEX_TILES_BURST=2 timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  grep -E "Warning|Error" /tmp/san.log | sort | uniq -c | head -5
done
