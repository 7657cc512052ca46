#!/usr/bin/env bash
# Issue 19, the Launcher trait, second step: Afforest CC, triangle count,
# intersection programs (lcc), the GPU tree validator and the gather/apply
# rounds (pr, bc, kcore) now run through it. Checked against the oracles,
# under memcheck, and timed against the build before the trait (vertex-old,
# b993086) in alternation.
set -u
cd bundle
for f in vertex vertex-old vertex-gpu-bench; do xz -dkf "$f.xz" && chmod +x "$f"; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== oracle checks (new build)"
for run in "cc kron:18" "cc grid:300x200" "cc uniform:200000:1600000" "tc kron:16" "lcc kron:14" \
    "pr kron:18" "pr grid:300x200" "bc kron:16" "kcore kron:16" "kcore grid:300x200"; do
  out=$(./vertex $run --backend gpu --validate 2>&1)
  echo "$run: $(grep -c 'oracle .*agrees' <<<"$out") $(grep -E '^  time ' <<<"$out" | head -n 1 | tr -s ' ')"
done
./vertex bench graph500 --scale 16 --roots 8 --backend gpu --validator gpu --out /tmp/g500v 2>&1 | grep -iE "valid|harmonic_mean" | head -n 4
./vertex-gpu-bench check --max-scale 14 2>&1 | tail -n 1
./vertex-gpu-bench programs --max-scale 14 2>&1 | tail -n 1
echo "== memcheck"
for run in "cc kron:10" "cc uniform:2000:16000" "tc kron:10" "lcc kron:10" "pr kron:10" "bc kron:10" "kcore kron:10"; do
  "$SAN" --tool memcheck --error-exitcode 3 ./vertex $run --backend gpu --validate > /tmp/san.log 2>&1
  echo "$run: rc=$? $(grep -c 'oracle .*agrees' /tmp/san.log) $(grep 'ERROR SUMMARY' /tmp/san.log)"
done
"$SAN" --tool memcheck --error-exitcode 3 ./vertex bench graph500 --scale 10 --roots 4 --backend gpu --validator gpu --out /tmp/sg > /tmp/san.log 2>&1
echo "graph500 gpu validator: rc=$? $(grep 'ERROR SUMMARY' /tmp/san.log)"
echo "== A/B, old then new, three rounds"
for i in 1 2 3; do
  for b in vertex-old vertex; do
    line="$i $b"
    for run in "pr kron:20" "cc kron:20" "tc kron:18" "bc kron:18" "kcore kron:18"; do
      t=$(./$b $run --backend gpu 2>&1 | grep -E '^  time ' | head -n 1 | tr -s ' ' | cut -d' ' -f3-5)
      line="$line | $run:$t"
    done
    echo "$line"
  done
done
