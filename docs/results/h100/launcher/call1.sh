#!/usr/bin/env bash
# Issue 19, the one Launcher trait: the device paths it rewrote (seed 000 levels
# of the built-in BFS and of programs, the direction loop) checked against the
# oracles, under memcheck, and timed against the build before it (vertex-old,
# b993086) in alternation on the same warm machine.
set -u
cd bundle
for f in vertex vertex-old vertex-gpu-bench; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== vertex-gpu-bench check (built-in BFS: naive, balanced, direction; store/atomic-min; parents)"
./vertex-gpu-bench check --max-scale 18 > /tmp/check.log 2>&1; echo "rc=$?"; grep -ciE "mismatch|FAIL|error" /tmp/check.log; tail -n 4 /tmp/check.log
echo "== vertex-gpu-bench programs (program kernels: naive, balanced, direction, resident, tiles)"
./vertex-gpu-bench programs --max-scale 16 > /tmp/programs.log 2>&1; echo "rc=$?"; grep -ciE "mismatch|FAIL|error" /tmp/programs.log; tail -n 4 /tmp/programs.log
echo "== vertex P G --kernel K --validate"
for g in kron:18 grid:300x200; do
  for p in bfs sssp; do
    for k in auto naive balanced direction; do
      out=$(./vertex "$p" "$g" --backend gpu --kernel "$k" --validate 2>&1)
      ok=$(grep -c "oracle .*agrees" <<<"$out")
      echo "$g $p $k ok=$ok $(grep -E '^  time ' <<<"$out" | tr -s ' ')"
    done
  done
done
echo "== memcheck"
"$SAN" --tool memcheck --error-exitcode 3 ./vertex-gpu-bench sanitize > /tmp/san1.log 2>&1; echo "sanitize rc=$?"; tail -n 2 /tmp/san1.log
"$SAN" --tool memcheck --error-exitcode 3 ./vertex-gpu-bench programs --small > /tmp/san2.log 2>&1; echo "programs --small rc=$?"; tail -n 2 /tmp/san2.log
echo "== A/B, old then new, three rounds"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    g=$(./$b bench graph500 --scale 22 --roots 16 --backend gpu --out /tmp/g500-$b-$i 2>&1 | grep -iE "harmonic" | head -n 1)
    s=$(./$b sssp kron:20 --backend gpu --kernel direction 2>&1 | grep -E '^  time ' | tr -s ' ')
    s2=$(./$b sssp kron:20 --backend gpu --kernel balanced 2>&1 | grep -E '^  time ' | tr -s ' ')
    r=$(./$b bfs grid:1000x1000 --backend gpu --kernel auto 2>&1 | grep -E '^  time ' | tr -s ' ')
    echo "$i $b | g500 s22: $g | sssp kron20 direction:$s | balanced:$s2 | bfs grid auto:$r"
  done
done
cp /tmp/check.log /tmp/programs.log /tmp/san1.log /tmp/san2.log "$OUT/" 2>/dev/null
