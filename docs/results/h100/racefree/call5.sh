#!/usr/bin/env bash
# Session of 2026-11-28 (2), call 5 (issue 19): `vertex bench gap` on the grids
# with the kept build (hand-over exchanges), GPU (auto: tiles) against gapbs on
# 16 threads, 4 random sources, 3 trials, every result verified on both sides.
#   run (carry ["bundle"]): bash docs/results/h100/racefree/call5.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OUT=$OUT bash "$B/gpu-run.sh" info >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./info.log; rm -f "$OUT/results.tgz"
grep -m1 "H100\|H200" "$OUT/info.log"
cd "$OUT" && timeout 400 "$B/vertex" bench gap grid:1000x1000 grid:2000x1000 \
    --gapbs "$B/gapbs" --threads 16 --kernels bfs,sssp --trials 3 --roots 4 \
    --label racefree --out "$OUT" --work /tmp/gapwork 2>&1 | tail -30 | tee "$OUT/gap.log"
ls "$OUT"
