# Issue 20: soft obim's chunk size (tasks per chunk, default 64) on the 1000² grid
# at 8 and 16 threads, Δ auto (50; "delta 0" below), 128 and 256, best of 5, twice; gapbs at its
# best Δ alongside.
set -u
cd bundle
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
for rep in 1 2; do
  for d in 0 128 256; do
    for c in 16 64 256 1024; do
      echo "== rep $rep delta $d chunk $c"
      if [ $d = 0 ]; then D=""; else D="--delta $d"; fi
      ./vertex compare sssp grid:1000x1000 --schedules obim --threads 8,16 --repeats 5 $D --chunk $c 2>&1 | grep -E "^obim"
    done
  done
  for t in 8 16; do
    echo "== rep $rep gapbs $t threads delta 256"; OMP_NUM_THREADS=$t ./gapbs/sssp -f /tmp/bw/grid-1000x1000.wsg -d 256 -r 0 -n 5 2>&1 | grep Average
  done
done
