#!/usr/bin/env bash
# Session 9, call 5: the build to be committed. Hub entry with the 1,024-thread bound,
# bench gap on the 1000² grid (GPU vs gapbs 16 threads), the shapes step with all kernels.
set -u
B=$(cd "$(dirname "$0")" && pwd)
python3 "$B/odd-graphs.py" /tmp/odd >/dev/null
for p in bfs sssp widest; do
  echo "$p star_path resident: $("$B/vertex" $p /tmp/odd/star_path.wel --backend gpu --kernel resident --validate 2>&1 | grep -E '^  (resident|time|oracle)|rror' | tr -s ' ' | tr '\n' ' ')"
done
"$B/vertex" bench gap grid:1000x1000 --gapbs "$B/gapbs" --threads 16 --kernels bfs,sssp --delta 512 \
   --out "$OUT/gap" --work /tmp/gw --label h100-session9 2>&1 | tail -n 25
bash "$B/gpu-run.sh" shapes > /tmp/shapes.out 2>&1
grep -c "^ok" /tmp/gpu-out/shapes.log
grep -v "^ok" /tmp/gpu-out/shapes.log | grep -v "not a valid u32" | head -40
cp /tmp/gpu-out/shapes.log "$OUT/shapes.log"
