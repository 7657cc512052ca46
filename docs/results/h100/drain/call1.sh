#!/usr/bin/env bash
# Drained one-block phases (kernels_rs::resident::Resident::drain), first look:
# the previous build (vertex-old, 092874b), this build with drains off
# (VERTEX_RESIDENT_DRAIN=0) and on, alternately; then the sanitizers.
set -u
cd bundle
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
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
            run sync VERTEX_RESIDENT_DRAIN=0 vertex $p $g
            run drain X=1 vertex $p $g --validate
        done
    done
done
for p in widest cc; do
    run old X=1 vertex-old $p grid:1000x1000
    run drain X=1 vertex $p grid:1000x1000 --validate
done
for p in bfs sssp; do
    run old X=1 vertex-old $p grid:4000x4000
    run drain X=1 vertex $p grid:4000x4000 --validate
    run old X=1 vertex-old $p kron:18
    run drain X=1 vertex $p kron:18 --validate
done
for t in memcheck racecheck synccheck; do
    for p in bfs sssp widest; do
        echo "== $t $p grid:60x40"
        "$SAN" --tool $t --error-exitcode 3 ./vertex $p grid:60x40 --backend gpu --kernel resident --validate 2>&1 \
            | grep -E "SUMMARY|oracle|rror" | head -5
    done
done
