#!/usr/bin/env bash
# Two CTA fences instead of four when the leader opens a level (the outbox
# hand-over and the cleared counters share one; the waits for the takes and
# the posting share the other), against eee43f6 (vertex-prev); oracle checks,
# three A/B rounds (ms), the profile, memcheck, then GAP BFS/SSSP on grids
# against gapbs on 16 threads.
set -u
cd bundle
for f in vertex vertex-prev; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (this build)"
for g in grid:300x200 grid:1000x1000 grid:2000x1000 uniform:200000:3000000 kron:16; do
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
  for b in vertex-prev vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(timeout 30 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
for b in vertex-prev vertex; do for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 30 ./$b $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [$b $p]"; done; done
echo "== memcheck (this build)"
for run in "bfs grid:60x40" "sssp grid:60x40" "bfs uniform:3000:30000"; do
  timeout 100 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
done
echo "== GAP on grids against gapbs, 16 threads"
timeout 240 ./vertex bench gap grid:1000x1000 grid:2000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --trials 3 --roots 4 --label h100-messenger-fences --out "$OUT" --work /tmp/gapwork 2>&1 | tail -n 12
