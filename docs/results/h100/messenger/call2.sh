#!/usr/bin/env bash
# The leader prepares the next level while the level runs (VERTEX_TILES_EARLY=1,
# the default of this build) or after its barrier (=0), against 1490570
# (vertex-old) and call 1's build (vertex-msg1); three rounds (ms), the phase
# profile with the leader's waits for the messenger; full racecheck reports.
set -u
cd bundle
for f in vertex vertex-old vertex-msg1; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (this build, early 1 and 0)"
for e in 1 0; do
for g in grid:300x200 grid:1000x1000 uniform:200000:3000000 kron:16; do
  for p in bfs sssp widest cc; do
    out=$(VERTEX_TILES_EARLY=$e timeout 30 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
    echo "early$e $g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") $(grep -m1 -i error <<<"$out")"
  done
done
out=$(VERTEX_TILES_EARLY=$e VERTEX_TILES_RING=2 timeout 30 ./vertex sssp grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
echo "early$e ring2 sssp grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 -i error <<<"$out")"
done
echo "== A/B, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex-msg1 "vertex 0" "vertex 1"; do
    line="$i $b"
    set -- $b
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(VERTEX_TILES_EARLY=${2:-1} timeout 30 ./$1 $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
for e in 0 1; do for p in bfs sssp; do VERTEX_TILES_EARLY=$e VERTEX_TILES_PROFILE=1 timeout 30 ./vertex $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [early$e $p]"; done; done
echo "== racecheck, full reports"
for run in "bfs grid:60x40" "sssp grid:60x40"; do
  timeout 120 "$SAN" --tool racecheck --racecheck-report all --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > "$OUT/race-${run// /-}.log" 2>&1
  echo "racecheck $run: rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/race-${run// /-}.log")"
done
timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex sssp grid:60x40 --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
echo "memcheck sssp grid:60x40: rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
