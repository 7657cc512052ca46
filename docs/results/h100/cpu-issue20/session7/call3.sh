# Issue 20: SSSP grid 1000² from vertex 0, ours (vertex compare, obim: bulk
# Δ-stepping at 1-2 threads, soft priorities above) against gapbs sssp with
# relaxation counters (gapbs-count: src/sssp.cc counting tasks, edges and pushes),
# Δ 64 and 512, 1 to 16 threads.
set -u
cd bundle
# bench-cpu writes the gapbs file of the grid (a one-run bench).
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for d in 64 512; do
    echo "== delta $d ours"
    ./vertex compare sssp grid:1000x1000 --schedules obim --threads 1,2,4,8,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
    for t in 1 2 4 8 16; do
        echo "== delta $d gapbs threads $t"
        OMP_NUM_THREADS=$t ./gapbs-count -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 5 2>&1 | grep -E "took|Average" | sort | uniq -c | head -4
    done
done
