# Issue 20: lock-step buckets (bulk Δ-stepping, forced with VERTEX_LOCKSTEP_MAX)
# against soft obim at 4, 8 and 16 threads, auto Δ, with the kept pool; three
# alternations, grids 1000² and 2000×1000 from vertex 0.
set -u
cd bundle
for rep in 1 2 3; do
  for g in grid:1000x1000 grid:2000x1000; do
    for mode in bulk soft; do
      echo "== rep $rep $g $mode"
      if [ $mode = bulk ]; then e=VERTEX_LOCKSTEP_MAX=64; else e=X=1; fi
      env $e ./vertex compare sssp $g --schedules obim --threads 4,8,16 --repeats 5 2>&1 | grep -E "^obim"
    done
  done
done
