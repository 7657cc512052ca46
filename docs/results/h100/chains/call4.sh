#!/usr/bin/env bash
# Session of 2026-11-28, call 4 (issue 19): the committed chains (defaults: 2 for
# widest paths and labels, none for SSSP) on the odd graph files of
# scripts/odd-graphs.py (`gpu-run.sh shapes` with the kernels chains touch:
# auto and tiles), then each program on the 1000² grid with no --kernel.
#   run (carry ["bundle"]): bash docs/results/h100/chains/call4.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in "$B"/*.xz; do
    [ -e "${f%.xz}" ] || python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$f" "${f%.xz}"
    chmod +x "${f%.xz}"
done
SHAPES_KERNELS="auto tiles" OUT=$OUT bash "$B/gpu-run.sh" shapes >/dev/null 2>&1
tar xzf "$OUT/results.tgz" -C "$OUT" ./shapes.log; rm -f "$OUT/results.tgz"
grep -c "^ok" "$OUT/shapes.log"; grep -E "^(BAD|n/a)|SUMMARY" "$OUT/shapes.log"
{
    for p in widest sssp bfs cc; do
        a=(); [ "$p" = cc ] && a=(--algorithm label)
        for r in 1 2; do
            "$B/vertex" "$p" grid:1000x1000 "${a[@]}" --backend gpu --source 500500 --validate 2>&1 \
                | grep -E "^  (kernel|tiles|time|oracle)"
        done
    done
} 2>&1 | tee "$OUT/defaults.log"
