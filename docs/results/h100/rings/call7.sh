#!/usr/bin/env bash
# Tiles with message rings, final build (exact outbox reservation again; issue 19): oracle checks of auto and tiles, A/B against 3a3350d, sanitizers.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (new build)"
for g in grid:1000x1000 grid:2000x1000 uniform:200000:3000000; do
  for p in bfs sssp widest cc; do
    for k in auto; do
      out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --kernel $k --validate 2>&1)
      echo "$g $p $k: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") | $(grep -E '^  (kernel|tiles) ' <<<"$out" | tr -s ' ' | tr '\n' ' ' | cut -c1-120)"
    done
  done
done
for ring in 2; do
  for p in bfs sssp; do
    out=$(VERTEX_TILES_RING=$ring timeout 60 ./vertex "$p" grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
    echo "ring$ring $p grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out")"
  done
done
echo "== A/B, old then new, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000 --kernel auto" "bfs grid:1000x1000 --kernel tiles" "sssp grid:1000x1000 --kernel auto" "widest grid:1000x1000 --kernel auto" "bfs grid:2000x1000 --kernel auto" "sssp grid:2000x1000 --kernel auto" "bfs grid:1000x1000 --kernel auto --source 500500" "sssp grid:1000x1000 --kernel auto --source 500500"; do
      out=$(timeout 60 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1-2,4 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run"): $(t "$out")"
    done
    echo "$line"
  done
done
echo "== profile"
for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 60 ./vertex $p grid:1000x1000 --backend gpu --kernel tiles 2>&1 | grep -E "tiles profile|^  time"; done
echo "== sanitizers (new build)"
for run in "bfs grid:60x40" "sssp grid:60x40" "widest grid:60x40"; do
  timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  grep -E "Warning|Error" /tmp/san.log | sort | uniq -c | head -5
done
