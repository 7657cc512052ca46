#!/usr/bin/env bash
# Block 0's cache of reached vertices (kernels_rs::resident::Seen) in the
# resident BFS: vertex-old (7611cc9, kernels as d19b15c) against this build with
# VERTEX_RESIDENT_SEEN = 0 (cache off, same code), the default (8,188 words),
# 16,380 and 32,764; then directed edge-list files on the GPU, the sanitizers,
# and `bench gap` against gapbs on the grid.
set -u
cd bundle
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, binary, args...
    local label=$1 env=$2 bin=$3; shift 3
    echo "== $label $*"
    env $env ./$bin "$@" --backend gpu 2>&1 | grep -E "^  (resident|time|oracle|kernel)|rror|WRONG"
}
for g in grid:1000x1000 grid:2000x1000; do
    for rep in 1 2; do
        run old X=1 vertex-old bfs $g --kernel resident
        for s in 0 8188 16380 32764; do
            v=(); [ $s = 8188 ] && v=(--validate)
            run s$s VERTEX_RESIDENT_SEEN=$s vertex bfs $g --kernel resident "${v[@]}"
        done
    done
done
for g in grid:4000x4000 kron:18 kron:22; do
    run old X=1 vertex-old bfs $g --kernel resident
    run new X=1 vertex bfs $g --kernel resident --validate
    run auto X=1 vertex bfs $g --validate
done
# Directed edge-list files (read as directed): a random graph and one-way grid streets.
python3 - <<'PY'
import random
random.seed(7)
n, m = 200000, 1600000
with open('/tmp/rand.wel', 'w') as f:
    for _ in range(m):
        f.write(f"{random.randrange(n)} {random.randrange(n)} {random.randint(1, 255)}\n")
w = 700
with open('/tmp/oneway.wel', 'w') as f:
    for r in range(w):
        for c in range(w):
            v = r * w + c
            if c + 1 < w: f.write(f"{v} {v + 1} {random.randint(1, 255)}\n" if r % 2 == 0 else f"{v + 1} {v} {random.randint(1, 255)}\n")
            if r + 1 < w: f.write(f"{v} {v + w} {random.randint(1, 255)}\n" if c % 3 else f"{v + w} {v} {random.randint(1, 255)}\n")
PY
for f in /tmp/rand.wel /tmp/oneway.wel; do
    for p in bfs sssp; do
        for k in auto resident tiles direction; do
            run "$k" X=1 vertex $p $f --kernel $k --validate
        done
    done
done
for t in memcheck racecheck; do
    for g in grid:60x40 kron:10; do
        echo "== $t bfs $g"
        timeout 120 "$SAN" --tool $t --error-exitcode 3 ./vertex bfs $g --backend gpu --kernel resident --validate 2>&1 \
            | grep -E "SUMMARY|oracle|rror" | head -5
    done
done
timeout 150 ./vertex bench gap grid:1000x1000 --gapbs gapbs --threads 16 --kernels bfs --trials 3 \
    --out "$OUT/gap" --work /tmp/gw --label seen 2>&1 | tail -15
