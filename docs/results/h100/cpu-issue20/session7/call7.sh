# Issue 20: the asynchronous engines' workers from the kept rayon pool
# (vertex) against threads spawned per run (vertex-old), alternating; SSSP grid
# 1000² (bulk forced at every count with VERTEX_LOCKSTEP_MAX, and soft obim) and
# bench-cpu's Δ sweep at 16 threads; gapbs alongside.
set -u
cd bundle
gunzip -c vertex-old.gz > vertex-old && chmod +x vertex-old
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for rep in 1 2; do
  for b in vertex-old vertex; do
    for d in 64 512; do
      echo "== $b delta $d bulk"
      VERTEX_LOCKSTEP_MAX=64 ./$b compare sssp grid:1000x1000 --schedules obim --threads 2,4,8,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
      echo "== $b delta $d soft"
      ./$b compare sssp grid:1000x1000 --schedules obim --threads 4,8,16 --repeats 5 --delta $d 2>&1 | grep -E "^obim"
    done
  done
  for d in 64 512; do
    for t in 4 8 16; do
      echo "== delta $d gapbs threads $t"; OMP_NUM_THREADS=$t ./gapbs/sssp -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 5 2>&1 | grep -E "Average"
    done
  done
done
for b in vertex-old vertex; do
  echo "== $b bench-cpu sweep 16 threads"
  ./$b bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 16 --roots 4 \
      --trials 3 --deltas 64,128,256,512 --work /tmp/bw --out $OUT/$b-t16 2>&1 | grep -E "Δ [0-9]+:|threads: ours"
done
