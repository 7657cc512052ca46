#!/usr/bin/env bash
# Issue 19, the Launcher trait, third step: the persistent kernels (resident,
# tiles) through its team launch. Oracle checks, the level-to-resident
# handover, memcheck/racecheck, and A/B against vertex-old (b993086).
set -u
cd bundle
for f in vertex vertex-old vertex-gpu-bench; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== vertex-gpu-bench programs --max-scale 16"
./vertex-gpu-bench programs --max-scale 16 2>&1 | tail -n 1
echo "== oracle checks"
for g in grid:1000x1000 grid:2000x1000 kron:20; do
  for p in bfs sssp widest; do
    for k in auto resident tiles; do
      out=$(./vertex "$p" "$g" --backend gpu --kernel "$k" --validate 2>&1)
      echo "$g $p $k: $(grep -c 'oracle .*agrees' <<<"$out") $(grep -E '^  time ' <<<"$out" | tr -s ' ')| $(grep -E '^  (kernel|resident|tiles) ' <<<"$out" | tr -s ' ' | tr '\n' ' ' | cut -c1-110)"
    done
  done
done
echo "== sanitizers"
for tool in memcheck racecheck; do
  for run in "bfs grid:60x40 --kernel resident" "sssp grid:60x40 --kernel resident" "sssp grid:60x40 --kernel tiles" "bfs kron:10 --kernel resident" "sssp kron:12 --kernel auto"; do
    "$SAN" --tool "$tool" --error-exitcode 3 ./vertex $run --backend gpu --validate > /tmp/san.log 2>&1
    echo "$tool $run: rc=$? $(grep -c 'oracle .*agrees' /tmp/san.log) $(grep 'ERROR SUMMARY' /tmp/san.log)"
  done
done
echo "== A/B, old then new, three rounds (ms)"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "bfs grid:1000x1000 --kernel resident" "sssp grid:1000x1000 --kernel auto" "sssp grid:1000x1000 --kernel resident" "bfs grid:2000x1000 --kernel auto" "sssp kron:20 --kernel auto" "widest grid:1000x1000 --kernel auto"; do
      t=$(./$b $run --backend gpu 2>&1 | grep -E '^  time ' | head -n 1 | tr -s ' ' | cut -d' ' -f3)
      line="$line | $(cut -d' ' -f1-2,4 <<<"$run"): $t"
    done
    echo "$line"
  done
done
