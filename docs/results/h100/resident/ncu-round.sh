#!/usr/bin/env bash
# Is a one-block round bound by one SM's L2 traffic? Nsight Compute counters of
# the resident BFS kernel on the 1000² grid (1,817 one-block rounds) and, for
# scale, of the same run with 512-thread blocks.
cd bundle
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n1)
M=gpu__time_duration.sum,sm__cycles_elapsed.max,lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for blk in 1024 512; do
    echo "== block $blk"
    VERTEX_RESIDENT_BLOCK=$blk timeout 200 "$NCU" --kernel-name regex:resident --metrics "$M" --csv \
        ./vertex bfs grid:1000x1000 --backend gpu --kernel resident 2>&1 | grep -E '"|time|rror' | tail -14
done
