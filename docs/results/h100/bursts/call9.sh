#!/usr/bin/env bash
# Messages paid from the block's tokens by the posting warp's first lane, one shared atomic for the warp (call8 paid per lane). A/B against 1490570 (vertex-old), oracle checks, sanitizers.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export VERTEX_TILES_BURST=0
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (new build)"
for g in grid:1000x1000 grid:2000x1000 grid:300x200 uniform:20000:80000 uniform:200000:3000000; do
  for p in bfs sssp widest cc; do
    out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
    echo "$g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") $(grep -m1 error <<<"$out")"
  done
done
for b in 0 2; do for p in bfs sssp; do
  out=$(VERTEX_TILES_BURST=$b VERTEX_TILES_RING=2 timeout 60 ./vertex "$p" grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
  echo "burst$b ring2 $p grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 error <<<"$out")"
done; done
for g in grid:1000x1000 grid:300x200; do
  out=$(timeout 60 ./vertex sssp $g --weights 1..2000000000 --backend gpu --kernel tiles --validate 2>&1)
  echo "64-bit sssp $g: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 error <<<"$out")"
done
out=$(VERTEX_TILES_RING=2 timeout 60 ./vertex sssp grid:300x200 --weights 1..2000000000 --backend gpu --kernel tiles --validate 2>&1)
echo "64-bit sssp ring2 grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -m1 error <<<"$out")"
for i in 1 2 3; do out=$(timeout 60 ./vertex bfs grid:1000x1000 --backend gpu --kernel tiles --validate 2>&1); echo "repeat $i bfs 1000: agree=$(grep -c 'oracle .*agrees' <<<"$out")"; done
echo "== A/B, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(timeout 60 ./$b $run --backend gpu 2>&1)
      line="$line | $(cut -d' ' -f1 <<<"$run")$(grep -o -- '--source [0-9]*' <<<"$run" | cut -c10-) $(cut -d' ' -f2 <<<"$run" | cut -c6-): $(t "$out")"
    done
    echo "$line"
  done
done
for p in bfs sssp; do VERTEX_TILES_PROFILE=1 timeout 60 ./vertex $p grid:1000x1000 --backend gpu 2>&1 | grep -E "tiles profile|^  time" | tr '\n' ' '; echo " [new $p]"; done
echo "== sanitizers (new build)"
for run in "bfs grid:60x40" "sssp grid:60x40" "widest grid:60x40" "cc grid:60x40" "bfs uniform:3000:30000"; do
  timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "memcheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'ERROR SUMMARY' /tmp/san.log)"
  timeout 120 "$SAN" --tool racecheck --error-exitcode 3 ./vertex $run --backend gpu --kernel tiles --validate > /tmp/san.log 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' /tmp/san.log) $(grep -E 'RACECHECK SUMMARY' /tmp/san.log)"
  grep -E "Warning|Error" /tmp/san.log | sort | uniq -c | head -5
done
