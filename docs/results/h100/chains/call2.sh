#!/usr/bin/env bash
# Session of 2026-11-28, call 2 (issue 19): chains inside a tile's level
# (kernels-rs/src/tiles/level.rs, `follow`), VERTEX_TILES_CHAIN 0 / 4 / 16
# against the build before them (bundle/vertex-old, 154e0d8), every new run
# --validate'd; compute-sanitizer on the new kernel; then `vertex bench gap` on
# the grids with the chain length that was fastest on SSSP 1000².
#   run (carry ["bundle"]): bash docs/results/h100/chains/call2.sh
set -uo pipefail
B=$PWD/bundle
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# The binaries travel xz-compressed (the carried tree is capped at 64 MiB).
for f in "$B"/*.xz; do
    [ -e "${f%.xz}" ] || python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$f" "${f%.xz}"
    chmod +x "${f%.xz}"
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
one() { # label binary chain program graph source [extra...]
    local l=$1 b=$2 c=$3 p=$4 g=$5 s=$6; shift 6
    VERTEX_TILES_CHAIN=$c "$B/$b" "$p" "$g" --backend gpu --kernel tiles --source "$s" --json "$@" \
        2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%-6s %-6s %-22s %7s %8.3f ms rounds %5s validated %s" % (sys.argv[1], sys.argv[2],
      sys.argv[3], sys.argv[4], d["time_s"] * 1e3, d["rounds"], d.get("validated")))' "$l" "$p" "$g" "$s"
}
{
    for g in grid:1000x1000 grid:2000x1000; do
        ps="sssp widest cc bfs"; [ "$g" = grid:2000x1000 ] && ps="sssp bfs"
        for p in $ps; do
            for s in 0 500500 123456; do
                one old vertex-old 0 "$p" "$g" "$s"
                for c in 0 4 16; do one "c$c" vertex "$c" "$p" "$g" "$s" --validate; done
            done
        done
    done
    for p in sssp widest; do
        one old vertex-old 0 "$p" uniform:200000:3000000 0
        for c in 0 4; do one "c$c" vertex "$c" "$p" uniform:200000:3000000 0 --validate; done
    done
    one c4 vertex 4 sssp kron:16 1 --validate
} 2>&1 | tee "$OUT/ab.log"
best=$(python3 - "$OUT/ab.log" <<'PY'
import collections, sys
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) > 4 and f[1] == "sssp" and f[2] == "grid:1000x1000" and f[0].startswith("c"):
        t[int(f[0][1:])].append(float(f[4]))
print(min(t, key=lambda c: sum(t[c])) if t else 4)
PY
)
echo "fastest chain on SSSP 1000²: $best" | tee -a "$OUT/ab.log"
{
    for t in memcheck racecheck; do
        for p in sssp widest cc; do
            echo "== $t $p grid:60x40 chain 4"
            VERTEX_TILES_CHAIN=4 "$SAN" --tool "$t" "$B/vertex" "$p" grid:60x40 --backend gpu \
                --kernel tiles --validate 2>&1 | grep -E "SUMMARY|oracle|rror"
        done
    done
} 2>&1 | tee "$OUT/sanitize.log"
cd "$OUT" && VERTEX_TILES_CHAIN=$best timeout 150 "$B/vertex" bench gap grid:1000x1000 grid:2000x1000 \
    --gapbs "$B/gapbs" --threads 16 --kernels bfs,sssp --trials 3 --roots 4 --label "h100-chain$best" \
    --out "$OUT" 2>&1 | tail -25 | tee "$OUT/gap.log"
ls "$OUT"
