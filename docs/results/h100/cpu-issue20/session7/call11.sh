# Issue 20: page faults and context switches of our SSSP runs against gapbs's
# (GNU time), grid 1000², Δ 64 and 512, 16 threads; 20 runs each side so the
# one-off load is small against them.
set -u
cd bundle
./vertex bench-cpu --gapbs gapbs --bfs= --pr= --sssp grid:1000x1000 --threads 1 --roots 1 \
    --trials 1 --deltas 64 --work /tmp/bw --out /tmp/x >/dev/null 2>&1
T='%e s elapsed, %U user, %S sys, %R minor faults, %c involuntary, %w voluntary switches'
for d in 64 512; do
  echo "== delta $d ours (obim, 16 threads, 1 and 21 runs)"
  /usr/bin/time -f "$T" ./vertex compare sssp grid:1000x1000 --schedules obim --threads 16 --repeats 1 --delta $d 2>&1 | grep -E "^obim|elapsed"
  /usr/bin/time -f "$T" ./vertex compare sssp grid:1000x1000 --schedules obim --threads 16 --repeats 21 --delta $d 2>&1 | grep -E "^obim|elapsed"
  echo "== delta $d gapbs (16 threads, 1 and 21 runs)"
  OMP_NUM_THREADS=16 /usr/bin/time -f "$T" ./gapbs/sssp -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 1 2>&1 | grep -E "Average|elapsed"
  OMP_NUM_THREADS=16 /usr/bin/time -f "$T" ./gapbs/sssp -f /tmp/bw/grid-1000x1000.wsg -d $d -r 0 -n 21 2>&1 | grep -E "Average|elapsed"
done
