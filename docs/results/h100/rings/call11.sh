#!/usr/bin/env bash
# Tiles: a block barrier instead of thread 0's counter wait before it moves the next pass's range (issue 19): racecheck, A/B against 182d300.
set -u
cd bundle
for f in vertex vertex-prev; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
for run in "bfs grid:60x40" "sssp grid:60x40" "widest grid:60x40" "cc grid:60x40" "bfs uniform:3000:30000"; do
  timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
done
for g in grid:1000x1000 grid:2000x1000; do
  for p in bfs sssp widest; do
    out=$(timeout 60 ./vertex $p $g --backend gpu --validate 2>&1)
    echo "$g $p auto: agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out")"
  done
done
out=$(VERTEX_TILES_RING=2 timeout 60 ./vertex sssp grid:300x200 --backend gpu --kernel tiles --validate 2>&1); echo "ring2 sssp: agree=$(grep -c 'oracle .*agrees' <<<"$out")"
echo "== A/B, previous (182d300) then new, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-prev vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "widest grid:1000x1000" "bfs grid:2000x1000" "sssp grid:2000x1000" "bfs grid:1000x1000 --source 500500"; do
      out=$(timeout 60 ./$b $run --backend gpu 2>&1)
      line="$line | $run: $(t "$out")"
    done
    echo "$line"
  done
done
