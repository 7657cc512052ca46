#!/usr/bin/env bash
# Why a one-block round waits: Nsight Compute's warp-state sampling of the
# resident BFS kernel on the 1000² grid (stall reasons, and per SASS instruction).
set -u
cd bundle
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n1)
timeout 300 "$NCU" --kernel-name regex:resident --section WarpStateStats --section SourceCounters \
    --section SchedulerStats -o /tmp/stall -f ./vertex bfs grid:1000x1000 --backend gpu --kernel resident 2>&1 | tail -3
"$NCU" -i /tmp/stall.ncu-rep --page details --csv > "$OUT/stall-details.csv" 2>&1
grep -iE "stall|issue|eligible|active warps" "$OUT/stall-details.csv" | awk -F'","' '{print $13" | "$14" | "$15}' | head -60
"$NCU" -i /tmp/stall.ncu-rep --page source --csv --print-source sass > "$OUT/stall-source.csv" 2>&1
head -c 600 "$OUT/stall-source.csv"; echo; wc -l "$OUT/stall-source.csv"
