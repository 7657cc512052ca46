#!/usr/bin/env bash
# Where a one-block round's ~5 µs go: the resident kernel's phase profile
# (VERTEX_RESIDENT_PROFILE: block 0's thread 0, clock64 per phase), Nsight
# Compute's instruction and cycle counts of the busiest SM, and the SASS of
# vx_bfs_resident as the driver's assembler makes it under .maxntid 1024.
set -u
cd bundle
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n1)
PTXAS=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n1)
OBJ=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, args...
    local label=$1 env=$2; shift 2
    echo "== $label $*"
    env $env ./vertex "$@" --backend gpu --kernel resident 2>&1 | grep -E "^  (resident|time|oracle)|profile|rror|WRONG"
}
for rep in 1 2; do
    run plain X=1 bfs grid:1000x1000
    run prof VERTEX_RESIDENT_PROFILE=1 bfs grid:1000x1000
    run prof-seen0 "VERTEX_RESIDENT_PROFILE=1 VERTEX_RESIDENT_SEEN=0" bfs grid:1000x1000
done
run prof-b512 "VERTEX_RESIDENT_PROFILE=1 VERTEX_RESIDENT_BLOCK=512" bfs grid:1000x1000
run prof-center VERTEX_RESIDENT_PROFILE=1 bfs grid:1000x1000 --source 500500
run prof-sssp VERTEX_RESIDENT_PROFILE=1 sssp grid:1000x1000
run prof-4000 VERTEX_RESIDENT_PROFILE=1 bfs grid:4000x4000 --validate
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__inst_executed.max,sm__inst_executed.sum,smsp__inst_executed.max,smsp__issue_active.max,sm__inst_executed_pipe_lsu.max,l1tex__data_pipe_lsu_wavefronts_mem_shared.max,lts__t_requests.sum
echo "== ncu bfs grid:1000x1000"
timeout 200 "$NCU" --kernel-name regex:resident --metrics "$M" --csv \
    ./vertex bfs grid:1000x1000 --backend gpu --kernel resident 2>&1 | grep -E '"|time|rror' | tail -12
if [ -f bfsres.ptx ]; then
    "$PTXAS" -arch=sm_90 -v -o /tmp/bfsres.cubin bfsres.ptx 2>&1 | grep -A2 "vx_bfs_resident" | head -3
    "$OBJ" -sass -fun vx_bfs_resident /tmp/bfsres.cubin > "$OUT/bfs-resident.sass" 2>&1
    wc -l "$OUT/bfs-resident.sass"
fi
