#!/usr/bin/env bash
# Row reads in aligned quads, row bounds in pairs (plain loads, kernels_rs::rowload):
# vertex-old (7611cc9), vertex-a (the phase profile only) and this build,
# alternating; the phase profile; the sanitizers on the resident kernels.
set -u
cd bundle
for z in vertex-old vertex-a; do gunzip -c $z.gz > $z; chmod +x $z; done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, binary, args...
    local label=$1 env=$2 bin=$3; shift 3
    echo "== $label $*"
    env $env ./$bin "$@" --backend gpu 2>&1 | grep -E "^  (time|oracle)|profile|rror|WRONG"
}
for g in grid:1000x1000 grid:2000x1000; do
    for rep in 1 2 3; do
        run old X=1 vertex-old bfs $g --kernel resident
        run a X=1 vertex-a bfs $g --kernel resident
        run new X=1 vertex bfs $g --kernel resident
    done
    run a-prof VERTEX_RESIDENT_PROFILE=1 vertex-a bfs $g --kernel resident
    run new-prof VERTEX_RESIDENT_PROFILE=1 vertex bfs $g --kernel resident --validate
    for rep in 1 2; do
        run old X=1 vertex-old sssp $g --kernel resident
        run new X=1 vertex sssp $g --kernel resident
    done
    run new X=1 vertex sssp $g --kernel resident --validate
done
for g in grid:4000x4000 kron:20 kron:22; do
    run old X=1 vertex-old bfs $g --kernel resident
    run new X=1 vertex bfs $g --kernel resident --validate
done
for p in cc widest; do run new X=1 vertex $p grid:1000x1000 --kernel resident --validate; done
for t in memcheck racecheck synccheck; do
    for p in bfs sssp; do
        for g in grid:60x40 kron:10; do
            echo "== $t $p $g"
            timeout 120 "$SAN" --tool $t --error-exitcode 3 ./vertex $p $g --backend gpu --kernel resident --validate 2>&1 \
                | grep -E "SUMMARY|oracle|rror" | head -3
        done
    done
done
