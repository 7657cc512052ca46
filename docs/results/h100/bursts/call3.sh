#!/usr/bin/env bash
# Short levels relaxed by a group of lanes per vertex (issue 19): oracle checks, A/B against the bursts-only build (vertex-old: VERTEX_TILES_BURST=0 is the committed kernel), profile, sanitizers.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
echo "tiles threads: $(./vertex bfs grid:100x100 --backend gpu --kernel tiles 2>&1 | grep -o "[0-9]* blocks × [0-9]* threads")"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t() { grep -E '^  time ' <<<"$1" | head -n1 | tr -s ' ' | cut -d' ' -f3; }
echo "== oracle checks (new build, default burst)"
for g in grid:1000x1000 grid:2000x1000 grid:300x200; do
  for p in bfs sssp widest cc; do
    out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
    echo "$g $p: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") | $(grep -E '^  tiles ' <<<"$out" | tr -s ' ' | cut -c1-150) $(grep -m1 error <<<"$out")"
  done
done
for g in uniform:200000:3000000 uniform:20000:80000 kron:16; do for p in bfs sssp; do
  out=$(timeout 60 ./vertex "$p" "$g" --backend gpu --kernel tiles --validate 2>&1)
  echo "$g $p tiles: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out") time=$(t "$out") $(grep -m1 error <<<"$out")"
done; done
for b in 0 2 32; do for p in bfs sssp; do
  out=$(VERTEX_TILES_BURST=$b VERTEX_TILES_RING=2 timeout 60 ./vertex "$p" grid:300x200 --backend gpu --kernel tiles --validate 2>&1)
  echo "burst$b ring2 $p grid:300x200: rc=$? agree=$(grep -c 'oracle .*agrees' <<<"$out")"
done; done
echo "== A/B, three rounds (ms)"
for i in 1 2 3; do
  for cfg in "vertex-old 0" "vertex-old 2" "vertex 0" "vertex 2" "vertex 4"; do
    set -- $cfg
    line="$i $1 burst=$2"
    for run in "bfs grid:1000x1000" "sssp grid:1000x1000" "bfs grid:1000x1000 --source 500500" "sssp grid:1000x1000 --source 500500" "bfs grid:2000x1000" "sssp grid:2000x1000" "widest grid:1000x1000"; do
      out=$(VERTEX_TILES_BURST=$2 timeout 60 ./$1 $run --backend gpu 2>&1)
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
