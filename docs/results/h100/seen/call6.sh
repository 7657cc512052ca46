#!/usr/bin/env bash
# Row reads in aligned quads and row bounds in 16-byte pairs (kernels_rs::rowload):
# vertex-old (7611cc9), vertex-prev (cache + unchecked indexing) and this build,
# alternating; this build without the L2 prefetch of appended rows; the profile;
# then the SASS of vx_bfs_resident under .maxntid 1024.
set -u
cd bundle
PTXAS=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n1)
OBJ=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, binary, args...
    local label=$1 env=$2 bin=$3; shift 3
    echo "== $label $*"
    env $env ./$bin "$@" --backend gpu 2>&1 | grep -E "^  (resident|time|oracle)|profile|rror|WRONG"
}
for g in grid:1000x1000 grid:2000x1000; do
    for rep in 1 2; do
        run old X=1 vertex-old bfs $g --kernel resident
        run new X=1 vertex bfs $g --kernel resident
        run new-nopf VERTEX_RESIDENT_NO_PREFETCH=1 vertex bfs $g --kernel resident
    done
    run new-prof VERTEX_RESIDENT_PROFILE=1 vertex bfs $g --kernel resident --validate
    run old X=1 vertex-old sssp $g --kernel resident
    run new X=1 vertex sssp $g --kernel resident --validate
    run new-nopf VERTEX_RESIDENT_NO_PREFETCH=1 vertex sssp $g --kernel resident
done
for g in grid:4000x4000 kron:20; do
    run old X=1 vertex-old bfs $g --kernel resident
    run new X=1 vertex bfs $g --kernel resident --validate
    run new-nopf VERTEX_RESIDENT_NO_PREFETCH=1 vertex bfs $g --kernel resident
done
run new X=1 vertex cc grid:1000x1000 --kernel resident --validate
run new X=1 vertex widest grid:1000x1000 --kernel resident --validate
[ -f bfsres.ptx.gz ] && gunzip -f bfsres.ptx.gz
if [ -f bfsres.ptx ]; then
    "$PTXAS" -arch=sm_90 -v -o /tmp/bfsres.cubin bfsres.ptx 2>&1 | grep -A2 "vx_bfs_resident" | head -3
    "$OBJ" -sass -fun vx_bfs_resident /tmp/bfsres.cubin > "$OUT/bfs-resident.sass" 2>&1
fi
