#!/usr/bin/env bash
# The one-block round's edge loop with unchecked row indexing: vertex-old
# (7611cc9) against this build, BFS on grids (profile on the side), then the
# SASS of vx_bfs_resident under .maxntid 1024.
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
    for rep in 1 2 3; do
        run old X=1 vertex-old bfs $g --kernel resident
        run new X=1 vertex bfs $g --kernel resident
    done
    run new-prof VERTEX_RESIDENT_PROFILE=1 vertex bfs $g --kernel resident --validate
    run old X=1 vertex-old sssp $g --kernel resident
    run new X=1 vertex sssp $g --kernel resident --validate
done
run old X=1 vertex-old bfs grid:4000x4000 --kernel resident
run new X=1 vertex bfs grid:4000x4000 --kernel resident --validate
run old X=1 vertex-old bfs kron:20 --kernel resident
run new X=1 vertex bfs kron:20 --kernel resident --validate
if [ -f bfsres.ptx ]; then
    "$PTXAS" -arch=sm_90 -v -o /tmp/bfsres.cubin bfsres.ptx 2>&1 | grep -A2 "vx_bfs_resident" | head -3
    "$OBJ" -sass -fun vx_bfs_resident /tmp/bfsres.cubin > "$OUT/bfs-resident.sass" 2>&1
fi
