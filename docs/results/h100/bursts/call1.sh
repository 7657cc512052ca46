#!/usr/bin/env bash
# Bursts of short levels run by warp 0 alone (issue 19): oracle checks, burst-length sweep (0 = the previous behaviour), profile, sanitizers.
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (default burst)"
for g in grid:1000x1000 grid:2000x1000 uniform:200000:3000000; do
  for p in bfs sssp widest cc; do
    out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --validate 2>&1)
    echo "$g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") | $(grep -E '^  (kernel|tiles) ' <<<"$out" | tr -s ' ' | tr '\n' ' ' | cut -c1-160)"
  done
done
for b in 1 32; do for p in bfs sssp; do
  out=$(VERTEX_TILES_BURST=$b VERTEX_TILES_RING=2 timeout 60 ./vertex "$p" grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
  echo "burst$b ring2 $p grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out")"
done; done
out=$(timeout 60 ./vertex bfs kron:16 --backend gpu --kernel tiles --validate 2>&1); echo "kron:16 tiles: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out")"
echo "== burst sweep, two rounds (ms)"
for i in 1 2; do
  for b in 0 1 2 4 8 16 32 64; do
    line="$i burst=$b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "widest grid:1000x1000"; do
      out=$(VERTEX_TILES_BURST=$b timeout 60 ./vertex $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c3-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
echo "== profile"
for b in 0 8; do for p in bfs sssp; do VERTEX_TILES_BURST=$b VERTEX_TILES_PROFILE=1 timeout 60 ./vertex $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [burst $b $p]"; done; done
echo "== sanitizers"
for run in "bfs grid:60x40" "sssp grid:60x40" "widest grid:60x40" "cc grid:60x40"; do
  timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  grep -E "Warning|Error" /tmp/san.log | sort | uniq -c | head -5
done
