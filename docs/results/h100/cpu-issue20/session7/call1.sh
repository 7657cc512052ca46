# Issue 20: SSSP grid 1000² at 4, 8 and 16 threads with a Δ sweep past 128 on
# both sides (the sweep runs at the thread count given), and whether perf works
# on the 16-core host.
set -u
cd bundle
perf --version 2>&1 | head -1; cat /proc/sys/kernel/perf_event_paranoid
for t in 4 8 16; do
    echo "== sssp threads $t"
    timeout 170 ./vertex bench-cpu --gapbs gapbs --bfs= --sssp grid:1000x1000 --pr= --threads $t \
        --roots 4 --trials 3 --deltas 64,128,256,512,1024 --work /tmp/bw --out "$OUT/sssp-t$t" 2>&1 | grep -E "Δ [0-9]+:|ratio|obim|bulk|gapbs  " | head -30
done
