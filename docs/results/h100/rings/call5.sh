#!/usr/bin/env bash
# Tiles with message rings, warp-uniform posting (issue 19): oracle checks, small rings, sanitizers, A/B against the previous build.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (new build, --kernel tiles unless said)"
for g in grid:1000x1000 grid:2000x1000 grid:300x200 kron:16 uniform:20000:80000 uniform:200000:3000000; do
  for p in bfs sssp widest cc; do
    out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
    echo "$g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") | $(grep -E '^  (kernel|tiles) ' <<<"$out" | tr -s ' ' | tr '\n' ' ' | cut -c1-150)"
  done
done
echo "== small rings on the device (VERTEX_TILES_RING)"
for ring in 2 16; do
  for g in grid:300x200 uniform:20000:80000; do
    for p in bfs sssp cc; do
      out=$(VERTEX_TILES_RING=$ring timeout 60 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
      echo "ring$ring $p $g: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out")"
    done
  done
done
echo "== profile"
for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 60 ./vertex $p grid:1000x1000 --backend gpu --kernel tiles 2>&1 | grep -E "tiles profile|^  time"; done
echo "== A/B, old then new, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000 --kernel tiles" "bfs grid:1000x1000 --kernel resident" "sssp grid:1000x1000 --kernel tiles" "widest grid:1000x1000 --kernel tiles" "cc grid:1000x1000 --kernel tiles" "bfs grid:2000x1000 --kernel tiles" "sssp grid:2000x1000 --kernel tiles" "bfs grid:1000x1000 --kernel tiles --source 500500" "sssp grid:1000x1000 --kernel tiles --source 500500"; do
      out=$(timeout 60 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1-2 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run"): $(t "$out")"
    done
    echo "$line"
  done
done
echo "== sanitizers (new build)"
for tool in memcheck racecheck; do
  for run in "bfs grid:60x40" "sssp grid:60x40" "cc grid:60x40" "widest grid:60x40" "bfs uniform:3000:30000"; do
    timeout 120 "$SAN" --tool "$tool" --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
    echo "$tool $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log)"
  done
  VERTEX_TILES_RING=2 timeout 120 "$SAN" --tool "$tool" --error-exitcode 3 ./vertex sssp grid:60x40 --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "$tool ring2 sssp grid:60x40: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log)"
done
