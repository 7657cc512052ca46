#!/usr/bin/env bash
# Four outbox parts (a level waits for the messenger only when it has fallen
# four levels behind) against call 1's build (vertex-msg1: two halves) and
# 1490570 (vertex-old); oracle checks, three A/B rounds (ms), the profile,
# sanitizers, then GAP BFS/SSSP on grids against gapbs on 16 threads.
set -u
cd bundle
for f in vertex vertex-old vertex-msg1; do xz -dkf "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (this build)"
for g in grid:300x200 grid:1000x1000 grid:2000x1000 uniform:20000:80000 uniform:200000:3000000 kron:16; do
  for p in bfs sssp widest cc; do
    out=$(timeout 30 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
    echo "$g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") $(grep -m1 -i error <<<"$out")"
  done
done
for p in bfs sssp cc; do
  out=$(VERTEX_TILES_RING=2 timeout 30 ./vertex "$p" grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
  echo "ring2 $p grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 -i error <<<"$out")"
done
out=$(timeout 30 ./vertex sssp grid:1000x1000 --weights 1..2000000000 --backend gpu --kernel tiles --validate 2>&1)
echo "sssp 64-bit grid:1000x1000: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 -i error <<<"$out")"
echo "== A/B, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex-msg1 vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(timeout 30 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 30 ./vertex $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [vertex $p]"; done
echo "== sanitizers (this build)"
for run in "bfs grid:60x40" "sssp grid:60x40" "cc grid:60x40"; do
  timeout 100 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  timeout 100 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > "$OUT/race-$(echo $run | tr -c 'a-z0-9\n' '-').log" 2>&1
  echo "racecheck $run: rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/race-$(echo $run | tr -c 'a-z0-9\n' '-').log")"
done
echo "== GAP on grids against gapbs, 16 threads"
timeout 240 ./vertex bench gap grid:1000x1000 grid:2000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --trials 3 --roots 4 --label h100-messenger --out "$OUT" --work /tmp/gapwork 2>&1 | tail -n 30
