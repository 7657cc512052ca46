# Issue 20: our SSSP on the grid with the relax walk's software prefetches off
# (VERTEX_PREFETCH=0, a measuring build) against on, and gapbs, Δ 64 and 512.
set -u
cd bundle
lscpu | grep -E "Model name|L2|L3" | head -4
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for rep in 1 2; do
  for d in 64 512; do
    for p in 1 0; do
      echo "== delta $d prefetch $p"
      VERTEX_PREFETCH=$p ./vertex compare sssp grid:1000x1000 --schedules obim --threads 1,4,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
    done
    for t in 1 4 16; do
      echo "== delta $d gapbs threads $t"; OMP_NUM_THREADS=$t ./gapbs/sssp -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 5 2>&1 | grep -E "Average"
    done
  done
done
