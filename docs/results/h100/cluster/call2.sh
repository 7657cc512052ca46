#!/usr/bin/env bash
# Cluster rounds hand their queue over in the blocks' shared buffers
# (distributed shared memory) instead of the global queue: vertex-old
# (092874b) against this build at VERTEX_RESIDENT_CLUSTER = 1, 8, 16; then
# bench gap on the grid (gapbs 16 threads) and the sanitizers.
set -u
cd bundle
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, binary, args...
    local label=$1 env=$2 bin=$3; shift 3
    echo "== $label $*"
    env $env ./$bin "$@" --backend gpu --kernel resident 2>&1 | grep -E "^  (resident|time|oracle)|rror|WRONG"
}
for g in grid:1000x1000 grid:2000x1000; do
    for rep in 1 2; do
        for p in bfs sssp; do
            run old X=1 vertex-old $p $g
            for c in 1 8 16; do
                v=(); [ $c = 8 ] && v=(--validate)
                run c$c VERTEX_RESIDENT_CLUSTER=$c vertex $p $g "${v[@]}"
            done
        done
    done
done
for p in widest cc; do
    run old X=1 vertex-old $p grid:1000x1000
    run c8 X=1 vertex $p grid:1000x1000 --validate
    run c16 VERTEX_RESIDENT_CLUSTER=16 vertex $p grid:1000x1000 --validate
done
for p in bfs sssp; do
    for g in kron:18 kron:20 uniform:1000000:8000000; do
        run c8 X=1 vertex $p $g --validate
        run c16 VERTEX_RESIDENT_CLUSTER=16 vertex $p $g --validate
    done
    run old X=1 vertex-old $p grid:4000x4000
    run c8 X=1 vertex $p grid:4000x4000
    run c16 VERTEX_RESIDENT_CLUSTER=16 vertex $p grid:4000x4000
done
for t in memcheck racecheck synccheck; do
    for p in bfs sssp; do
        for g in grid:60x40 kron:10; do
            echo "== $t $p $g"
            timeout 100 "$SAN" --tool $t --error-exitcode 3 ./vertex $p $g --backend gpu --kernel resident --validate 2>&1 \
                | grep -E "SUMMARY|oracle|rror" | head -5
        done
    done
done
mkdir -p $OUT/gap
timeout 150 ./vertex bench gap grid:1000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --out $OUT/gap --work /tmp/gw --label cluster8 2>&1 | tail -15
