#!/usr/bin/env bash
# The messenger warp (posts and takes beside the levels) against 1490570's
# kernel (vertex-old: drain-and-post phase before each level). Oracle checks
# first (short timeouts: a hang shows as rc=124), then three A/B rounds (ms),
# the phase profile, and the sanitizers on the new kernel.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (new build)"
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
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(timeout 30 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
for b in vertex-old vertex; do for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 30 ./$b $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [$b $p]"; done; done
echo "== sanitizers (new build)"
for run in "bfs grid:60x40" "sssp grid:60x40" "cc grid:60x40" "bfs uniform:3000:30000"; do
  timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  grep -E "Warning|Error" /tmp/san.log | sort | uniq -c | head -5
done
timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex sssp grid:60x40 --weights 1..2000000000 --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
echo "racecheck sssp64 grid:60x40: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
