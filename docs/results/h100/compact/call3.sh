# Where the tiled kernel's round goes: Nsight Compute warp-state sampling of
# vx_bfs_tiles and vx_sssp_tiles on the 1000² grid, tiles cut from the compact order.
set -u
cd bundle
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n1)
for k in bfs sssp; do
  timeout 200 "$NCU" --kernel-name regex:tiles --section WarpStateStats --section SourceCounters \
      --section LaunchStats --section Occupancy -o /tmp/t$k -f ./vertex $k grid:1000x1000 --backend gpu --kernel tiles 2>&1 | tail -3
  "$NCU" -i /tmp/t$k.ncu-rep --page details --csv > "$OUT/$k-tiles-details.csv" 2>&1
  grep -iE "stall|registers|shared memory|block limit|achieved" "$OUT/$k-tiles-details.csv" | awk -F'","' '{print $13" | "$14" | "$15}' | head -40
  "$NCU" -i /tmp/t$k.ncu-rep --page source --csv --print-source sass > "$OUT/$k-tiles-source.csv" 2>&1
  wc -l "$OUT/$k-tiles-source.csv"
done
